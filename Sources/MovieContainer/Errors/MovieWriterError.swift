/// An error from ``MovieWriter``: a call in the wrong state, bad timestamps or sample data, or
/// a failed write to the sink.
///
/// The message names the track (or the file, or the sample table) and the step;
/// ``underlying`` carries the sink's or the scratch storage's own error, such as a full disk.
public struct MovieWriterError: Error, Sendable, CustomStringConvertible {
    public enum Code: Hashable, Sendable {
        /// The call does not fit the writer's state, such as adding a track after samples.
        case invalidState
        /// The track handle does not belong to this writer, or is of the other media kind.
        case unknownTrack
        /// Decode times do not increase, or a presentation time precedes its decode time.
        case invalidTimestamps
        /// The sample data cannot be stored, such as PCM that is not whole frames.
        case invalidSample
        /// A track format cannot be described in a movie.
        case invalidFormat
        /// The sink failed to store bytes, or the scratch storage that holds the sample tables
        /// of a long recording failed to store or return them.
        case writeFailed
    }

    public let code: Code
    public let message: String
    /// The sink's error, for ``Code/writeFailed``.
    public let underlying: (any Error)?

    init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        guard let underlying else { return message }
        return "\(message): \(underlying)"
    }
}
