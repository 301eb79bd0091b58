#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock and monotonic time from the system.
enum SystemClock {
    /// Seconds since 1970-01-01 UTC (the C function `clock_gettime(CLOCK_REALTIME)`).
    static func unixSeconds() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts.tv_sec
    }
}
