import MovieCapture
import MovieContainer

extension RecordingPipeline {
    /// What the capture, encoding and writing threads share, always under the pipeline's lock.
    /// `videoStart`, `lastVideoTimestamp` and `videoEnd` are nanoseconds on ``MonotonicClock``
    /// with the pauses taken out.
    struct State {
        var videoStart: UInt64?
        var lastVideoTimestamp: UInt64 = 0
        var stopping = false
        var videoEnd: UInt64?
        var audioEnded = false
        var failed: RecordingError?
        var stopReason: RecordingError?
        var interruption: InterruptionReason?
        /// Frames lost, and of those the ones the frame-rate steps left out on purpose.
        var dropped = 0
        var plannedDropped = 0
        /// The frame-rate steps under pressure.
        var governor: FrameRateGovernor
        /// The next frame's arrival number, counted from the first frame recorded.
        var arrivals = 0
        /// The lowest divisor heat and power allowed at the last frame.
        var pressureFloor = 1
        var corrupted = 0
        var overruns = 0
        /// Added to the timestamps of a non-live audio source to align it with the video.
        var audioOffset: Int64?
        /// Pausing: time taken out of the timeline so far, and where a pause began.
        var paused = false
        var pausedAt: UInt64 = 0
        var pauseOffset: UInt64 = 0
        var justResumed = false
        /// How many resumes have happened since the first frame; audio is tagged with it.
        var pauseEpoch = 0
        /// The pause offset of each epoch, once the first frame after its resume fixed it (the
        /// first, at the first frame of the recording).
        var pauseOffsets: [UInt64] = []
        var bytesWritten: UInt64 = 0
        var writtenDuration: Duration = .zero
        /// Rotation changes, each with the segment it happened in.
        var rotationChanges: [(segment: Int, change: RotationChange)] = []
        /// The segments started so far, the first at the first frame.
        var segments: [SegmentStart] = []
        /// A switch asked for and not made yet.
        var pendingSwitch: SwitchRequest?
        /// Where the encoding thread places the switch by size: the segment it ends, and the
        /// time (nanoseconds) at or after which a frame starts the next one.
        var sizeSwitch: (segment: Int, time: UInt64)?
        /// The orientation the next automatic segment carries.
        var orientation: VideoOrientation
        /// Where the audio placed so far ends on the timeline (nanoseconds): a switch is never
        /// made at a frame before it, so every audio frame goes to one segment.
        var audioPlacedEnd: UInt64 = 0
        /// The microphone clock's latest measured drift, parts per million.
        var audioClockDrift: Double?

        /// When the last location fix sent to the movie was captured, and whether the position
        /// is lost (a gap sent) since.
        var lastLocationCapture: UInt64?
        var locationLost = false
        /// Event clips asked for, which the writing thread begins at its next item.
        var eventRequests: [EventRequest] = []

        init(orientation: VideoOrientation, degrades: Bool) {
            self.orientation = orientation
            governor = FrameRateGovernor(isEnabled: degrades)
        }
    }
}
