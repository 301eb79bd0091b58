import MovieContainer
#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock and monotonic time from the system.
package enum SystemClock {
    /// Seconds since 1970-01-01 UTC (the C function `clock_gettime(CLOCK_REALTIME)`).
    package static func unixSeconds() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts.tv_sec
    }

    /// Nanoseconds since 1970-01-01 UTC (`CLOCK_REALTIME`).
    package static func unixNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The wall-clock time, in nanoseconds since 1970 UTC, of a monotonic time in the past.
    package static func unixNanoseconds(ofMonotonic monotonic: UInt64) -> UInt64 {
        let now = monotonicNanoseconds(), wall = unixNanoseconds()
        return wall - min(wall, now >= monotonic ? now - monotonic : 0)
    }

    /// Nanoseconds since an arbitrary point (boot), never going backwards (`CLOCK_MONOTONIC`,
    /// the clock V4L2 stamps buffers with).
    package static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps until `deadline` (monotonic nanoseconds), resuming after signals.
    package static func sleep(untilMonotonic deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        // clock_nanosleep returns its error instead of setting errno, so SystemCall does not fit.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
