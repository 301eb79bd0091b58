import MoviePlatform

/// A recording's frame-rate steps under pressure: it keeps one frame in ``divisor`` (1, 2 or
/// 3: 30, 15 and 10 frames a second from a 30 fps camera), evenly, by the frames' arrival
/// numbers counted from an anchor, the first frame kept at the step.
///
/// When the recording falls behind (the encoder's queue nearly full) it asks a live view to give
/// way, at most every ``stepSpacing``; when a frame would be lost (the queue full) it steps at
/// once (``overflowed(at:anchor:)``). It steps down when the process's CPU use, scaled to the
/// lower divisor, would stay within ``headroom`` of the cores the rest of the machine leaves it,
/// after ``hold`` without lag. A step down that is followed
/// by a step up within ``flapWindow`` doubles the hold (up to ``longestHold``), so a step the
/// encoder's own load caused does not flap.
struct FrameRateGovernor {
    /// What the recording does next, outside its lock.
    enum Action: Equatable {
        /// A live view should give way one step.
        case relieve
        /// Keep one frame in `divisor` from now.
        case stepDown(divisor: Int)
        /// The recording keeps up with room to spare: a live view may have its step back.
        case restoreExtra
    }

    static let deepest = 3
    static let stepSpacing: UInt64 = 500_000_000
    static let window: UInt64 = 1_000_000_000
    static let shortestHold: UInt64 = 4_000_000_000
    static let longestHold: UInt64 = 32_000_000_000
    static let flapWindow: UInt64 = 10_000_000_000
    /// The share of the cores left to the process that its CPU use, scaled to a lower divisor
    /// or with a live view back, may be predicted to take.
    static let headroom = 0.9

    /// Whether it acts; when not, it only counts.
    var isEnabled: Bool
    private(set) var divisor = 1
    private(set) var hold = shortestHold
    /// The arrival number the pattern counts from.
    private(set) var anchor = 0
    private var lastStep: UInt64 = 0
    private var lastStepDown: UInt64?
    private var calmSince: UInt64?
    private var windowStart: UInt64?
    private var windowLagged = false

    init(isEnabled: Bool) { self.isEnabled = isEnabled }

    /// Whether the frame that arrived `sequence`th is kept: every frame at divisor 1, then one
    /// in `divisor` from the anchor on.
    func keeps(_ sequence: Int) -> Bool {
        sequence < anchor || (sequence - anchor) % divisor == 0
    }

    /// The recording fell behind at `now`; `.relieve` when a step should be taken.
    mutating func lagged(at now: UInt64) -> Action? {
        windowLagged = true
        calmSince = nil
        guard isEnabled, now &- lastStep >= Self.stepSpacing else { return nil }
        lastStep = now
        if let down = lastStepDown, now &- down < Self.flapWindow { hold = min(hold * 2, Self.longestHold) }
        return .relieve
    }

    /// Keeps one frame in one more than now (or in `floor`) from the frame that arrives
    /// `anchor`th on; nil at the deepest step.
    mutating func stepUp(at now: UInt64, floor: Int = 1, anchor: Int) -> Int? {
        let next = min(max(divisor + 1, floor), Self.deepest)
        guard next > divisor else { return nil }
        setDivisor(next, at: now, anchor: anchor)
        return next
    }

    /// The queue in front of the encoder is full: when a step is left, it is taken at once,
    /// whatever the spacing, and the queued frames are thinned to it (see
    /// ``RecordingPipeline``), so the frame is left out on purpose rather than lost.
    mutating func overflowed(at now: UInt64, anchor: Int) -> Int? {
        guard isEnabled else { return nil }
        windowLagged = true
        calmSince = nil
        if let down = lastStepDown, now &- down < Self.flapWindow { hold = min(hold * 2, Self.longestHold) }
        return stepUp(at: now, anchor: anchor)
    }

    /// Called for each frame encoded, at `now`, `sequence` the next arrival number. Once a window has passed without lag, says
    /// whether a lower divisor (not below `floor`) or a live view's step back fits: the
    /// process's CPU use scaled to the lower divisor must stay within ``headroom`` of the cores
    /// the rest of the machine leaves it (`cpu`, the session's latest reading).
    mutating func evaluate(at now: UInt64, cpu: CPUUsage?, floor: Int, sequence: Int) -> Action? {
        let start = windowStart ?? now
        windowStart = start
        guard now &- start >= Self.window else { return nil }
        let lagged = windowLagged
        (windowStart, windowLagged) = (now, false)
        guard isEnabled, !lagged, let cpu else { calmSince = nil; return nil }
        let since = calmSince ?? start
        calmSince = since
        guard now &- since >= hold, now &- lastStep >= hold else { return nil }
        let room = cpu.available
        if divisor > floor {
            // The lowest divisor the process's work would fit at, with headroom.
            let fits = (floor..<divisor).first { cpu.own * Double(divisor) / Double($0) < Self.headroom * room }
            guard let target = fits else { return nil }
            setDivisor(target, at: now, anchor: sequence)
            lastStepDown = now
            return .stepDown(divisor: target)
        }
        guard divisor == 1, cpu.own < Self.headroom * room else { return nil }
        lastStep = now
        calmSince = nil
        return .restoreExtra
    }

    private mutating func setDivisor(_ value: Int, at now: UInt64, anchor: Int) {
        divisor = value
        self.anchor = anchor
        lastStep = now
        calmSince = nil
        if lastStepDown.map({ now &- $0 >= Self.flapWindow * 6 }) == true { hold = Self.shortestHold }
    }
}
