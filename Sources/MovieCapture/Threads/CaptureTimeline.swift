import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Capture times on ``MonotonicClock`` for equally spaced items — video frames or audio sample
/// frames: item `n` is at `start + n × seconds / count`, in whole nanoseconds rounded down from
/// the exact rational value, so no error accumulates however long a run lasts.
package struct CaptureTimeline: Sendable {
    /// The time of item 0, in nanoseconds.
    package let start: UInt64
    /// Items per `seconds`: frames, or the sample rate.
    package let count: UInt64
    package let seconds: UInt64

    package init(start: UInt64, count: UInt64, seconds: UInt64 = 1) {
        precondition(count > 0 && seconds > 0)
        self.start = start
        self.count = count
        self.seconds = seconds
    }

    /// The time of item `n`.
    package func time(of n: UInt64) -> UInt64 {
        let product = (n * seconds).multipliedFullWidth(by: 1_000_000_000)
        return start + count.dividingFullWidth(product).quotient
    }

    /// The last item whose time is at or before `time` (0 before the start).
    package func index(at time: UInt64) -> UInt64 {
        guard time > start else { return 0 }
        let product = (time - start).multipliedFullWidth(by: count)
        var n = (seconds * 1_000_000_000).dividingFullWidth(product).quotient
        while n > 0, self.time(of: n) > time { n -= 1 }
        while self.time(of: n + 1) <= time { n += 1 }
        return n
    }
}
