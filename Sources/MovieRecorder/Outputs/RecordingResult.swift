import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

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
    /// Of ``droppedFrameCount``, the frames left out on purpose: evenly, by the frame-rate
    /// steps of ``MovieFileOutput/degradesUnderPressure``.
    public var plannedDroppedFrameCount = 0
    /// Of ``droppedFrameCount``, the frames lost against the recording's will.
    public var unplannedDroppedFrameCount: Int { droppedFrameCount - plannedDroppedFrameCount }
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
    /// How long the writing thread took to finalize the file (the last fragment, the movie
    /// atom and the flush to the disk): for a segment, the time a switch holds up the writing
    /// thread while the next file fills its queue.
    public var finalizationDuration: Duration = .zero
    /// How many parts per million the microphone's clock ran fast (positive) or slow against
    /// the system clock that stamps the video, as measured over the recording; `nil` without
    /// audio from a device with a clock of its own (`AudioSource.hasOwnClock`),
    /// or when the recording was too short to measure it (under 10 seconds of audio).
    public var audioClockDrift: Double?
    /// A Boolean value that indicates whether the audio was resampled to follow the system
    /// clock (``MovieFileOutput/audioClockCorrection``).
    public var isAudioClockCorrected = false

    /// A textual representation of the result: path, frames, duration, size and orientation, then
    /// any losses, the error and whether the movie is playable.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        var text = "\(path): \(frameCount) frames, \(String(Int((seconds * 1000).rounded()))) ms, \(fileSize) bytes, orientation \(orientation)"
        if droppedFrameCount > 0 { text += ", \(droppedFrameCount) dropped" }
        if plannedDroppedFrameCount > 0 { text += " (\(plannedDroppedFrameCount) planned, \(unplannedDroppedFrameCount) unplanned)" }
        if corruptedFrameCount > 0 { text += ", \(corruptedFrameCount) corrupt" }
        if audioOverrunCount > 0 { text += ", \(audioOverrunCount) audio overruns" }
        if let audioClockDrift {
            text += ", audio clock \(audioClockDrift >= 0 ? "+" : "")\(Double(Int((audioClockDrift * 10).rounded())) / 10) ppm"
            text += isAudioClockCorrected ? " (corrected)" : " (not corrected)"
        }
        if let error { text += "; ended: \(error)" }
        return text + (isPlayable ? "" : "; NOT PLAYABLE")
    }
}

extension RecordingResult {
    /// The result of an event clip: its movie as read back.
    init(eventClip segment: RecordingSegment, info: MovieInfo?, size: UInt64) {
        let timescale = UInt64(max(1, info?.movieHeader.timescale ?? 1))
        self.init(path: segment.path,
                  duration: .nanoseconds(Int64(clamping: (info?.movieHeader.duration ?? 0) * 1_000_000_000 / timescale)),
                  fileSize: info?.tree.fileSize ?? size, frameCount: Int(info?.videoTrack?.sampleCount ?? 0),
                  droppedFrameCount: 0, corruptedFrameCount: 0, audioOverrunCount: 0, orientation: segment.orientation,
                  rotationChanges: [], isPlayable: info != nil, error: nil, interruption: nil)
    }

    /// The result of an event clip that could not begin: nothing was written at `path`.
    init(failedEventClip path: String, error: RecordingError) {
        self.init(path: path, duration: .zero, fileSize: 0, frameCount: 0, droppedFrameCount: 0, corruptedFrameCount: 0,
                  audioOverrunCount: 0, orientation: .up, rotationChanges: [], isPlayable: false, error: error, interruption: nil)
    }
}
