import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// Why a recording ended before it was asked to, or could not start or finish.
///
/// Like `AVErrorRecordingSuccessfullyFinishedKey`, a result with an error can still be a
/// finished, playable movie: check ``RecordingResult/isPlayable``.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// The output file exists and overwriting was not allowed.
        public static let fileExists = Code("fileExists")
        /// A setting was refused before recording, such as a segment name pattern without a
        /// number field or a segment limit out of range.
        public static let invalidSettings = Code("invalidSettings")
        /// The output file could not be created or written.
        public static let fileError = Code("fileError")
        /// The output is not part of a running session with a video source.
        public static let notConnected = Code("notConnected")
        /// A recording is already in progress.
        public static let alreadyRecording = Code("alreadyRecording")
        /// The encoder refused its settings or failed.
        public static let encoderFailed = Code("encoderFailed")
        /// A device was lost mid-recording; the movie was finalized up to that point.
        public static let deviceLost = Code("deviceLost")
        /// The file source ended; the movie holds all of it.
        public static let sourceEnded = Code("sourceEnded")
        /// ``MovieFileOutput/maxRecordedDuration`` was reached.
        public static let maximumDurationReached = Code("maximumDurationReached")
        /// ``MovieFileOutput/maxRecordedFileSize`` was reached.
        public static let maximumFileSizeReached = Code("maximumFileSizeReached")
        /// The disk's free space fell below ``MovieFileOutput/minFreeDiskSpaceLimit``.
        public static let minimumFreeDiskSpaceReached = Code("minimumFreeDiskSpaceReached")
        /// A thermal zone came close to its critical trip point (the level
        /// ``SystemPressureState/Level/critical``): the recording was finished before the system
        /// shuts down (``MovieFileOutput/degradesUnderPressure``).
        public static let systemPressureShutdown = Code("systemPressureShutdown")
    }

    /// The kind of failure. New kinds may be added; compare with the static members.
    public let code: Code
    /// A sentence that names the output and the step, and says what to do.
    public let message: String
    /// The error that caused this one, such as the `FileError` of a failed write or the
    /// encoder's error, or `nil`.
    public let underlyingError: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence that names the output and the step.
    ///   - underlyingError: The error that caused it, if any.
    public init(_ code: Code, _ message: String, underlyingError: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// Two errors are equal when their codes and messages are; the underlying errors are not
    /// compared.
    public static func == (lhs: RecordingError, rhs: RecordingError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    /// A textual representation of the error: its message.
    public var description: String { message }
}
