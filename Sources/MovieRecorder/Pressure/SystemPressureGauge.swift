import MoviePlatform

/// Turns readings into a ``SystemPressureState`` and keeps it from flapping: a level rises at
/// once and falls only after the signals have stayed below it for ``fallDelay``.
struct SystemPressureGauge {
    /// How long the signals must stay below the level before it falls, in nanoseconds.
    var fallDelay: UInt64 = 10_000_000_000
    private(set) var state = SystemPressureState.nominal
    /// Since when the signals have been below ``state``'s level.
    private var belowSince: UInt64?

    init(fallDelay: UInt64 = 10_000_000_000) { self.fallDelay = fallDelay }

    /// Where CPU contention (PSI `some avg10`, percent) makes the level fair and serious.
    static let contention: (fair: Double, serious: Double) = (40, 80)
    /// A zone's passive trip point when it declares none, in millidegrees: the Raspberry Pi
    /// firmware throttles at 85 °C.
    static let defaultPassive = 85_000

    /// Takes the signals at `now`; returns the new state when it changed.
    mutating func update(_ signals: SystemPressureState, at now: UInt64) -> SystemPressureState? {
        if signals.level >= state.level {
            belowSince = nil
            guard signals != state else { return nil }
            state = signals
            return state
        }
        let since = belowSince ?? now
        belowSince = since
        guard now &- since >= fallDelay else { return nil }
        belowSince = nil
        state = signals
        return state
    }

    /// The state the readings and the recordings' own lag say, before any hysteresis.
    static func signals(_ readings: PressureReadings, recordingLag: SystemPressureState.Level) -> SystemPressureState {
        var parts = readings.thermalZones.map { SystemPressureState(level: level(of: $0), factors: .systemTemperature) }
        if let flags = readings.firmwareThrottled { parts += firmware(flags) }
        if let average = readings.cpuSomeAverage10 {
            let level: SystemPressureState.Level = average >= contention.serious ? .serious : average >= contention.fair ? .fair : .nominal
            parts.append(SystemPressureState(level: level, factors: .cpuContention))
        }
        parts.append(SystemPressureState(level: recordingLag, factors: .recordingLag))
        let highest = parts.map(\.level).max() ?? .nominal
        guard highest > .nominal else { return .nominal }
        // The factors are those of every signal above nominal.
        let factors = parts.filter { $0.level > .nominal }.reduce(into: SystemPressureState.Factors()) { $0.formUnion($1.factors) }
        return SystemPressureState(level: highest, factors: factors)
    }

    /// A zone's level against its trip points: past critical the kernel powers off (shutdown),
    /// past hot (or 5 °C below critical) critical, past passive serious, within 5 °C of it fair.
    static func level(of zone: PressureReadings.ThermalZone) -> SystemPressureState.Level {
        let passive = zone.passive ?? zone.critical.map { $0 - 15_000 } ?? defaultPassive
        let hot = zone.hot ?? zone.critical.map { $0 - 5_000 }
        if let critical = zone.critical, zone.temperature >= critical { return .shutdown }
        if let hot, zone.temperature >= hot { return .critical }
        if zone.temperature >= passive { return .serious }
        return zone.temperature >= passive - 5_000 ? .fair : .nominal
    }

    /// The firmware's flags now (bits 0–3): under-voltage and throttling serious, a capped
    /// frequency and the soft temperature limit fair.
    static func firmware(_ flags: UInt32) -> [SystemPressureState] {
        var parts: [SystemPressureState] = []
        if flags & 0x1 != 0 { parts.append(SystemPressureState(level: .serious, factors: .peakPower)) }
        if flags & 0x4 != 0 { parts.append(SystemPressureState(level: .serious, factors: .systemTemperature)) }
        if flags & 0xA != 0 { parts.append(SystemPressureState(level: .fair, factors: .systemTemperature)) }
        return parts
    }
}
