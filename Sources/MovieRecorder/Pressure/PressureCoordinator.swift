import MoviePlatform
import MovieCapture
import Synchronization

/// A session's view of the pressure, and the order in which its outputs give way.
///
/// A thread samples the thermal zones, the firmware's flags and PSI under ``root`` every
/// ``interval`` while the session runs, adds the recordings' lag and publishes the state
/// through a ``SystemPressureGauge``. Recordings ask it for relief when they fall behind: a
/// live view gives way first (``LoadShedControl``), then the recording steps its own frame
/// rate (``FrameRateGovernor``). Every step goes out on ``steps``, never under the lock.
final class PressureCoordinator: Sendable {
    private struct State {
        var gauge: SystemPressureGauge
        /// The live views that may give way, in the order they were connected.
        var extras: [WeakShedControl] = []
        /// Until when a recording's lag makes the level serious.
        var lagUntil: UInt64 = 0
        /// The recordings' frame-rate divisors in force, by recording.
        var divisors: [ObjectIdentifier: Int] = [:]
        var sampler: DedicatedThread?
        /// The CPU counters at the last sample, and the usage since the one before.
        var cpuSample: CPUUsage.Sample?
        var cpuUsage: CPUUsage?
    }

    private struct WeakShedControl: @unchecked Sendable {
        weak var control: LoadShedControl?
    }

    /// Where the kernel's files are read: `/`, or a fixture tree in tests.
    let root: String
    /// How often the files are read, in nanoseconds.
    let interval: UInt64
    /// How long a recording's lag keeps the level serious, in nanoseconds.
    static let lagMemory: UInt64 = 5_000_000_000
    private let state: LockedValue<State>
    private let sleeper = ConditionLock()
    private let stopping = Atomic<Bool>(false)
    let states = Broadcaster<SystemPressureState>(buffered: 8)
    let steps = Broadcaster<DegradationStep>(buffered: 64)
    /// Whether a step is in force, after every change: what deferred work waits on.
    private let shedding = Broadcaster<Bool>(buffered: 1)

    init(root: String = "/", interval: UInt64 = 1_000_000_000, fallDelay: UInt64 = 10_000_000_000) {
        self.root = root
        self.interval = interval
        state = LockedValue(State(gauge: SystemPressureGauge(fallDelay: fallDelay)))
    }

    /// The state now.
    var current: SystemPressureState { state.withLock { $0.gauge.state } }

    /// The CPU this process and the rest of the machine used between the last two samples.
    var cpuUsage: CPUUsage? { state.withLock { $0.cpuUsage } }

    /// Starts sampling (the session started); a second call does nothing.
    func start() {
        let started: Bool = state.withLock { s in
            guard s.sampler == nil else { return false }
            stopping.store(false, ordering: .relaxed)
            return true
        }
        guard started else { return }
        let thread = DedicatedThread(name: "pressure") { [self] in sampleLoop() }
        state.withLock { $0.sampler = thread }
    }

    /// Stops sampling and waits for the thread.
    func stop() {
        guard let thread = state.withLock({ s -> DedicatedThread? in defer { s.sampler = nil }; return s.sampler }) else { return }
        sleeper.withLock {
            stopping.store(true, ordering: .relaxed)
            sleeper.broadcast()
        }
        thread.join()
    }

    private func sampleLoop() {
        while !stopping.load(ordering: .relaxed) {
            sample(at: MonotonicClock.now())
            let deadline = MonotonicClock.now() + interval
            sleeper.withLock {
                if !stopping.load(ordering: .relaxed) { _ = sleeper.wait(until: deadline) }
            }
        }
    }

    /// Reads the files once and publishes the state if it changed.
    func sample(at now: UInt64) {
        let readings = PressureReadings.read(root: root)
        let cpu = CPUUsage.sample(root: "/", now: now)  // the process's reality, even with fixtures
        let changed: SystemPressureState? = state.withLock { s in
            if let earlier = s.cpuSample, let cpu { s.cpuUsage = CPUUsage.between(earlier, cpu) }
            s.cpuSample = cpu
            let stepped = Self.isStepped(s)
            let lag: SystemPressureState.Level = now < s.lagUntil ? .serious : stepped ? .fair : .nominal
            return s.gauge.update(SystemPressureGauge.signals(readings, recordingLag: lag), at: now)
        }
        if let changed { states.send(changed) }
    }

    /// Whether a recording keeps fewer frames or a live view gives way now.
    var isStepped: Bool { state.withLock { Self.isStepped($0) } }

    private static func isStepped(_ s: State) -> Bool {
        s.divisors.values.contains { $0 > 1 } || s.extras.contains { ($0.control?.step ?? 0) > 0 }
    }

    /// Returns once no step is in force, or after `limit`: deferred work (a photo's full-size
    /// encode) gives way to a recording under pressure, but never for long.
    func waitForRelief(atMost limit: Duration) async {
        let changes = shedding.listen()  // before the check, so a change in between is heard
        guard isStepped else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await stepped in changes where !stepped { return } }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// A recording fell behind at `now`: frames waited for its encoder or were dropped.
    func noteLag(at now: UInt64) {
        let raised: SystemPressureState? = state.withLock { s in
            s.lagUntil = now + Self.lagMemory
            // The level rises at once, not at the next sample.
            var signals = s.gauge.state
            guard signals.level < .serious || !signals.factors.contains(.recordingLag) else { return nil }
            signals.level = max(signals.level, .serious)
            signals.factors.insert(.recordingLag)
            return s.gauge.update(signals, at: now)
        }
        if let raised { states.send(raised) }
    }

    /// Lets a live view give way to recordings under pressure, until it is gone.
    func register(_ control: LoadShedControl) {
        state.withLock { s in
            s.extras.removeAll { $0.control == nil || $0.control === control }
            s.extras.append(WeakShedControl(control: control))
        }
    }

    /// Asks a live view to give way one step more; false when none can.
    func shedExtra(reason: SystemPressureState.Factors) -> Bool {
        let step: DegradationStep? = state.withLock { s in
            guard let control = s.extras.lazy.compactMap(\.control).first(where: { $0.step < LoadShedControl.deepest }) else { return nil }
            control.setStep(control.step + 1)
            let change: DegradationStep.Change = control.step == 1 ? .liveViewFrameRate(divisor: 2) : .liveViewPaused(true)
            return DegradationStep(change: change, reason: reason, pressure: s.gauge.state)
        }
        if let step { send(step) }
        return step != nil
    }

    /// Gives a live view back one step, the last one taken first; false when none has given way.
    func restoreExtra() -> Bool {
        let step: DegradationStep? = state.withLock { s in
            guard let control = s.extras.lazy.compactMap(\.control).last(where: { $0.step > 0 }) else { return nil }
            control.setStep(control.step - 1)
            let change: DegradationStep.Change = control.step == 0 ? .liveViewFrameRate(divisor: 1) : .liveViewPaused(false)
            return DegradationStep(change: change, reason: [], pressure: s.gauge.state)
        }
        if let step { send(step) }
        return step != nil
    }

    /// A recording changed its frame-rate divisor (or finished: `nil`).
    func recording(_ id: ObjectIdentifier, changed change: DegradationStep.Change?, reason: SystemPressureState.Factors) {
        let step: DegradationStep? = state.withLock { s in
            switch change {
            case .recordingFrameRate(let divisor)?: s.divisors[id] = divisor
            case .recordingFinished?, nil: s.divisors[id] = nil
            default: break
            }
            return change.map { DegradationStep(change: $0, reason: reason, pressure: s.gauge.state) }
        }
        if let step { steps.send(step) }
        shedding.send(isStepped)
    }

    /// Publishes a step and whether any is in force now.
    private func send(_ step: DegradationStep) {
        steps.send(step)
        shedding.send(isStepped)
    }

    /// The level heat and power set (not CPU contention or lag): what a recording's frame
    /// rate must follow even when it keeps up.
    var thermalLevel: SystemPressureState.Level {
        let state = current
        return state.factors.isDisjoint(with: [.systemTemperature, .peakPower]) ? .nominal : state.level
    }
}
