/// An error from ``MovieWriter``: a call in the wrong state, bad timestamps or sample data, or
/// a failed write to the sink.
///
/// The message names the track (or the file, or the sample table) and the step;
/// ``underlying`` carries the sink's or the scratch storage's own error, such as a full disk.
public struct MovieWriterError: Error, Sendable, CustomStringConvertible {
    /// The kinds of writer failure. New kinds may be added; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// The call does not fit the writer's state, such as adding a track after samples.
        public static let invalidState = Code("invalidState")
        /// The track handle does not belong to this writer, or is of the other media kind.
        public static let unknownTrack = Code("unknownTrack")
        /// Decode times do not increase, or a presentation time precedes its decode time.
        public static let invalidTimestamps = Code("invalidTimestamps")
        /// The sample data cannot be stored, such as PCM that is not whole frames.
        public static let invalidSample = Code("invalidSample")
        /// A track format cannot be described in a movie.
        public static let invalidFormat = Code("invalidFormat")
        /// The sink failed to store bytes, or the scratch storage that holds the sample tables
        /// of a long recording failed to store or return them.
        public static let writeFailed = Code("writeFailed")
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence that names the track, the file or the sample table, and the step that failed.
    public let message: String
    /// The sink's error, for ``Code/writeFailed``.
    public let underlying: (any Error)?

    init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// A textual representation of the error: its ``message``, followed by the ``underlying``
    /// error when there is one.
    public var description: String {
        guard let underlying else { return message }
        return "\(message): \(underlying)"
    }
}
