import MovieContainer
import MoviePlatform

/// What a video source reports from its capture thread.
public enum VideoSourceEvent: Sendable {
    /// A picture.
    case frame(VideoFrame)
    /// Frames lost before delivery: skipped driver sequence numbers, or no free buffer because
    /// consumers are behind.
    case dropped(count: Int)
    /// A buffer the driver flagged as corrupt (V4L2_BUF_FLAG_ERROR); it was not delivered.
    case corrupted
    /// The device was lost or failed; no more events follow.
    case interrupted(InterruptionReason)
    /// A file source reached its end; no more events follow.
    case ended
}
