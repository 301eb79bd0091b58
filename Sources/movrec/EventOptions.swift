import MovieRecorder

/// `movrec record`'s event clip options: where clips go, how far they reach either side of
/// their trigger, the impact that triggers one, and the clips' byte budget.
struct EventOptions {
    /// `--event-directory DIR`: where the clips go; it must exist.
    var directory: String
    /// `--event-pre S` (default 10) and `--event-post S` (default 5).
    var preRoll: Duration
    var postRoll: Duration
    /// `--event-on-impact G`: the change of acceleration, in g, that saves a clip.
    var impactThreshold: Double?
    /// `--keep-events-bytes BYTES[K|M|G]`: the clips' byte budget.
    var keepBytes: UInt64?

    /// Takes the event options off `args`; nil when none was given.
    /// - Throws: `Arguments.UsageError` naming a bad value, or an event option without
    ///   `--event-directory`.
    init?(taking args: inout Arguments) throws {
        let preText = try args.option("--event-pre")
        let postText = try args.option("--event-post")
        let directoryText = try args.option("--event-directory")
        let impactText = try args.option("--event-on-impact")
        let keepText = try args.option("--keep-events-bytes")
        guard let directoryText else {
            if preText != nil || postText != nil || impactText != nil || keepText != nil {
                throw Arguments.UsageError(description: "--event-pre, --event-post, --event-on-impact and --keep-events-bytes need --event-directory DIR")
            }
            return nil
        }
        directory = directoryText
        preRoll = try preText.map { try Self.seconds($0, "--event-pre", upTo: 600) } ?? .seconds(10)
        postRoll = try postText.map { try Self.seconds($0, "--event-post", upTo: 3600) } ?? .seconds(5)
        impactThreshold = try impactText.map { text in
            let number = text.hasSuffix("g") ? String(text.dropLast()) : text
            guard let g = Double(number), g > 0, g <= 100 else {
                throw Arguments.UsageError(description: "--event-on-impact \(text) is not a change of acceleration in g, such as 2.5g")
            }
            return g
        }
        keepBytes = try RecordOptions.byteCount(keepText, "--keep-events-bytes")
    }

    /// A number of seconds from 0 to `limit`.
    private static func seconds(_ text: String, _ name: String, upTo limit: Double) throws -> Duration {
        guard let seconds = Double(text), seconds >= 0, seconds <= limit else {
            throw Arguments.UsageError(description: "\(name) \(text) is not a number of seconds from 0 to \(Int(limit))")
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// The movie output's settings for these options.
    var settings: EventClipSettings {
        EventClipSettings(directory: directory, preRollDuration: preRoll, maximumTotalSize: keepBytes)
    }
}
