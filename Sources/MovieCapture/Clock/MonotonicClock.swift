import MovieContainer
import MoviePlatform

/// Time on the system's monotonic clock, the one clock every source stamps its media with.
///
/// Times are nanoseconds since an arbitrary point (boot) that never go backwards: the clock
/// (`CLOCK_MONOTONIC`) V4L2 drivers stamp their buffers with.
public enum MonotonicClock {
    /// The current time in nanoseconds.
    public static func now() -> UInt64 { SystemClock.monotonicNanoseconds() }

    /// Sleeps the calling thread until `deadline` (monotonic nanoseconds).
    package static func sleep(until deadline: UInt64) { SystemClock.sleep(untilMonotonic: deadline) }
}
