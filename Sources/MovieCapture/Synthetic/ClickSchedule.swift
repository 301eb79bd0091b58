/// Where a tone marking seconds clicks: from the first sample captured at or after each whole
/// second of media time, for `length` samples.
///
/// The next click is found once per second from the sample timeline, so a sample clock that
/// drifts from the media clock (``SimulatedCrystal``) still clicks at true seconds.
struct ClickSchedule {
    let timeline: CaptureTimeline
    /// The media clock's time 0, nanoseconds on ``MonotonicClock``.
    let epoch: UInt64
    let length: UInt64
    /// The next click's first sample, and the whole second it marks.
    private var next: UInt64 = 0
    private var second: UInt64 = 0

    init(timeline: CaptureTimeline, epoch: UInt64, length: UInt64) {
        self.timeline = timeline
        self.epoch = epoch
        self.length = length
        next = firstSample(atOrAfter: epoch)
    }

    /// Whether sample `n` is part of a click; samples are asked for in increasing order.
    mutating func isClick(_ n: UInt64) -> Bool {
        while n >= next + length {
            second += 1
            next = firstSample(atOrAfter: epoch + second * 1_000_000_000)
        }
        return n >= next
    }

    private func firstSample(atOrAfter time: UInt64) -> UInt64 {
        var n = timeline.index(at: time)
        if timeline.time(of: n) < time { n += 1 }
        return n
    }
}
