import MoviePlatform

/// The media clock the synthetic sources share when they mark seconds: its time 0 is when the
/// first of them started in this process, so a test pattern's white flashes and a tone's
/// clicks fall on the same instants of ``MonotonicClock`` and a recording of both shows how
/// far apart the pipeline put them.
package enum SyncMarkClock {
    private static let epoch = LockedValue<UInt64?>(nil)

    /// The clock's time 0 on ``MonotonicClock``, set by the first call.
    package static func start() -> UInt64 {
        epoch.withLock { value in
            if value == nil { value = MonotonicClock.now() }
            return value!
        }
    }

    /// The timeline of a live source marking seconds at `count` per `seconds` and the index of its
    /// first frame, the first one due after now: a source that starts later joins the shared clock.
    static func timeline(count: UInt64, seconds: UInt64 = 1) -> (timeline: CaptureTimeline, first: UInt64) {
        let timeline = CaptureTimeline(start: start(), count: count, seconds: seconds)
        return (timeline, timeline.index(at: MonotonicClock.now()) + 1)
    }

    /// Whether item `n` of a timeline at `count` per `seconds` starts a whole second of media
    /// time, such as frame 30 at 30 fps or sample 48000 at 48 kHz.
    static func isMark(_ n: UInt64, count: UInt64, seconds: UInt64 = 1) -> Bool {
        (n * seconds) % count == 0
    }
}
