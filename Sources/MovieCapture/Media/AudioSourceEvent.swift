import MovieContainer
import MoviePlatform

/// What an audio source reports from its capture thread.
public enum AudioSourceEvent: Sendable {
    /// Interleaved PCM samples and the time they were captured.
    case buffer(AudioBuffer)
    /// The device's buffer overflowed (ALSA -EPIPE) and capture was restarted; the frames in
    /// between are lost.
    case overrun
    /// The device was suspended (ALSA -ESTRPIPE) and resumed.
    case resumedFromSuspend
    /// The device was lost; no more events follow.
    case interrupted(InterruptionReason)
    /// A file source reached its end; no more events follow.
    case ended
}
