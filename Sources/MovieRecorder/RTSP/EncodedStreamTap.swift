import MovieContainer
import MoviePlatform

/// Where an encode the session already runs hands its access units to the RTSP server: the
/// recording's H.264 or HEVC, the live stream's H.264 and AAC.
///
/// Publishing copies the handlers under the lock and calls them outside it; a handler only
/// offers to a bounded queue, so the encoding thread never waits on a client. Nothing is
/// published while nobody subscribes.
final class EncodedStreamTap: Sendable {
    private struct State {
        var handlers: [Int: @Sendable (EncodedStreamEvent) -> Void] = [:]
        var demands: [Int: @Sendable (EncodedStreamSample.Kind) -> Bool] = [:]
        var nextID = 0
        var video: EncodedVideoFormat?
        var audio: EncodedAudioFormat??
    }

    private let state = LockedValue(State())

    /// Whether anyone listens: encoders skip the copying when not.
    var hasSubscribers: Bool { state.withLock { !$0.handlers.isEmpty } }

    /// Whether a subscriber wants access units of `kind` now: an encode that runs only on
    /// demand (``LiveStreamSettings/encodesOnDemand``) skips them otherwise.
    func wants(_ kind: EncodedStreamSample.Kind) -> Bool {
        let demands = state.withLock { Array($0.demands.values) }
        return demands.contains { $0(kind) }
    }

    /// Adds a handler; it hears the formats in force at once, then everything published.
    /// `wants` says whether it wants access units of a kind now.
    func subscribe(wants: @escaping @Sendable (EncodedStreamSample.Kind) -> Bool = { _ in true },
                   _ handler: @escaping @Sendable (EncodedStreamEvent) -> Void) -> Int {
        let (id, video, audio) = state.withLock { s in
            defer { s.nextID += 1 }
            s.handlers[s.nextID] = handler
            s.demands[s.nextID] = wants
            return (s.nextID, s.video, s.audio)
        }
        if let video { handler(.videoFormat(video)) }
        if let audio { handler(.audioFormat(audio)) }
        return id
    }

    func unsubscribe(_ id: Int) {
        state.withLock { s in
            s.handlers[id] = nil
            s.demands[id] = nil
        }
    }

    /// Hands `event` to every handler; a format is remembered for those who subscribe later.
    func publish(_ event: EncodedStreamEvent) {
        let handlers = state.withLock { s in
            switch event {
            case .videoFormat(let format): s.video = format
            case .audioFormat(let format): s.audio = .some(format)
            case .sample: break
            }
            return Array(s.handlers.values)
        }
        for handler in handlers { handler(event) }
    }
}

/// What an encode publishes.
enum EncodedStreamEvent: Sendable {
    /// The video's format, before its first access unit and whenever it changes.
    case videoFormat(EncodedVideoFormat)
    /// The audio's format, or nil when the encode has no audio.
    case audioFormat(EncodedAudioFormat?)
    case sample(EncodedStreamSample)
}

/// A video stream's codec and its decoder configuration record.
struct EncodedVideoFormat: Sendable, Equatable {
    enum Codec: Sendable, Equatable { case h264, hevc }
    var codec: Codec
    /// The `avcC` or `hvcC` record.
    var configuration: [UInt8]
    var width: Int
    var height: Int

    /// The format of a track's sample description ('avc1' with its 'avcC', 'hvc1' with 'hvcC').
    init?(_ track: VideoTrackFormat) {
        let entry = track.sampleEntry
        if let record = entry.extensions.first(where: { $0.type == "avcC" }) {
            codec = .h264
            configuration = record.body
        } else if let record = entry.extensions.first(where: { $0.type == "hvcC" }) {
            codec = .hevc
            configuration = record.body
        } else {
            return nil
        }
        width = Int(entry.width)
        height = Int(entry.height)
    }
}

/// An AAC stream's AudioSpecificConfig, rate and channels.
struct EncodedAudioFormat: Sendable, Equatable {
    var audioSpecificConfig: [UInt8]
    var sampleRate: Int
    var channelCount: Int

    init(_ format: AACFormat) {
        audioSpecificConfig = format.audioSpecificConfig
        sampleRate = Int(format.sampleRate)
        channelCount = Int(format.channelCount)
    }
}

/// One access unit with the wall-clock times its content was captured at.
struct EncodedStreamSample: Sendable {
    enum Kind: Sendable { case video, audio }
    var kind: Kind
    /// Video: length-prefixed NAL units (4-byte lengths); audio: one raw AAC access unit.
    var bytes: [UInt8]
    /// Capture time of what it shows, in nanoseconds since 1970.
    var presentation: UInt64
    /// When it must be decoded, on the same clock (earlier than `presentation` with B-frames).
    var decode: UInt64
    var duration: UInt64
    var isKeyframe: Bool
    /// How the picture is to be shown (video only): sent as a display-orientation SEI.
    var orientation = VideoOrientation.up
}
