import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// Why a recording ended before it was asked to, or could not start or finish.
///
/// Like `AVErrorRecordingSuccessfullyFinishedKey`, a result with an error can still be a
/// finished, playable movie: check ``RecordingResult/isPlayable``.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Hashable, Sendable {
        /// The output file exists and overwriting was not allowed.
        case fileExists
        /// The output file could not be created or written.
        case fileError
        /// The output is not part of a running session with a video source.
        case notConnected
        /// A recording is already in progress.
        case alreadyRecording
        /// The encoder refused its settings or failed.
        case encoderFailed
        /// A device was lost mid-recording; the movie was finalized up to that point.
        case deviceLost
        /// The file source ended; the movie holds all of it.
        case sourceEnded
        /// ``MovieFileOutput/maxRecordedDuration`` was reached.
        case maximumDurationReached
        /// ``MovieFileOutput/maxRecordedFileSize`` was reached.
        case maximumFileSizeReached
        /// The disk's free space fell below ``MovieFileOutput/minFreeDiskSpaceLimit``.
        case minimumFreeDiskSpaceReached
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A change of the output's rotation while a recording ran. The movie keeps the orientation it
/// started with, as on Apple platforms; these are reported so an application can react.
public struct RotationChange: Hashable, Sendable {
    /// Time since the recording started.
    public var time: Duration
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
