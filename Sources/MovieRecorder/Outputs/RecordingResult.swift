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

/// A change of the output's rotation while a recording ran. The movie keeps the orientation it
/// started with, as on Apple platforms; these are reported so an application can react.
public struct RotationChange: Hashable, Sendable {
    /// Time since the recording started.
    public var time: Duration
    /// The orientation the output was turned to.
    public var orientation: VideoOrientation
}

/// What a finished recording produced.
public struct RecordingResult: Sendable, CustomStringConvertible {
    /// The movie's path.
    public var path: String
    /// The movie's duration.
    public var duration: Duration
    /// The file's size in bytes.
    public var fileSize: UInt64
    /// Video frames in the movie.
    public var frameCount: Int
    /// Frames lost: by the driver (sequence gaps), for lack of buffers, or because the encoder
    /// could not keep up.
    public var droppedFrameCount: Int
    /// Frames the driver flagged as corrupt and that were left out.
    public var corruptedFrameCount: Int
    /// Audio overruns recovered from; each loses some audio, replaced by silence to keep sync.
    public var audioOverrunCount: Int
    /// The orientation written into the movie's track matrix.
    public var orientation: VideoOrientation
    /// Rotation changes while recording (not in the movie).
    public var rotationChanges: [RotationChange]
    /// A Boolean value that indicates whether the movie was finalized and players can open it.
    public var isPlayable: Bool
    /// Why the recording ended early, or `nil` when it was stopped as asked.
    public var error: RecordingError?
    /// The device interruption that ended it, if any.
    public var interruption: InterruptionReason?

    /// A textual representation of the result: path, frames, duration, size and orientation, then
    /// any losses, the error and whether the movie is playable.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        var text = "\(path): \(frameCount) frames, \(String(Int((seconds * 1000).rounded()))) ms, \(fileSize) bytes, orientation \(orientation)"
        if droppedFrameCount > 0 { text += ", \(droppedFrameCount) dropped" }
        if corruptedFrameCount > 0 { text += ", \(corruptedFrameCount) corrupt" }
        if audioOverrunCount > 0 { text += ", \(audioOverrunCount) audio overruns" }
        if let error { text += "; ended: \(error)" }
        return text + (isPlayable ? "" : "; NOT PLAYABLE")
    }
}
