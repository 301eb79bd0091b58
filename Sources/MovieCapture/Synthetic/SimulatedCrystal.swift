/// A sound card's crystal for tests: a ``ToneSource`` given one counts its samples on a clock
/// that runs `partsPerMillion` fast (positive) or slow against ``MonotonicClock``, and stamps
/// each buffer with the error a real capture time has.
///
/// The source then stands in for a microphone whose audio drifts from the video: its
/// ``ToneSource/hasOwnClock`` is true, so a recording measures and corrects it. Its clicks
/// (``ToneSource/marksSeconds``) still fall on whole seconds of true time, as a click played
/// into a real sound card at those instants would be captured.
package struct SimulatedCrystal: Sendable {
    /// How far the crystal is off: 1000 makes 48 kHz run at 48048 frames per second.
    package var partsPerMillion: Int64
    /// Each timestamp is off by up to this many nanoseconds either way (uniformly, from a fixed
    /// seed), like the moment a driver reads its position.
    package var jitter: UInt64
    /// One buffer in `lateStampInterval` (0 for none) is stamped `lateStamp` late, as a capture
    /// time taken on a late wake-up without the device's delay would be.
    package var lateStampInterval: Int
    package var lateStamp: UInt64
    /// The true time of a source's first sample when it does not run in real time; `nil` for
    /// the moment it starts.
    package var start: UInt64?

    package init(partsPerMillion: Int64, jitter: UInt64 = 0, lateStampInterval: Int = 0, lateStamp: UInt64 = 0,
                 start: UInt64? = nil) {
        self.start = start
        self.partsPerMillion = partsPerMillion
        self.jitter = jitter
        self.lateStampInterval = lateStampInterval
        self.lateStamp = lateStamp
    }

    /// The capture times of frames at `sampleRate` on this crystal, frame 0 at `start`.
    func timeline(start: UInt64, sampleRate: UInt64) -> CaptureTimeline {
        CaptureTimeline(start: start, count: sampleRate * UInt64(1_000_000 + partsPerMillion), seconds: 1_000_000)
    }

    /// The measurement error of buffer `index`'s timestamp, from `random`'s next value.
    func error(ofBuffer index: Int, _ random: inout UInt64) -> Int64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        var error = jitter == 0 ? 0 : Int64(random % (2 * jitter + 1)) - Int64(jitter)
        if lateStampInterval > 0, index % lateStampInterval == lateStampInterval - 1 { error += Int64(lateStamp) }
        return error
    }
}
