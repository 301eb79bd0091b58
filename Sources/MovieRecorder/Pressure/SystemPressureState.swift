/// How hard the machine is pressed, as `AVCaptureDevice.SystemPressureState` says it: a level
/// and the factors behind it.
///
/// A ``CaptureSession`` reads the thermal zones' temperatures against their trip points, the
/// Raspberry Pi firmware's throttling flags, the kernel's CPU pressure (PSI) and its own
/// recordings' lag, about once a second while it runs (``CaptureSession/systemPressureState``,
/// ``CaptureSession/systemPressureUpdates()``). A level rises at once and falls only after the
/// signals have stayed below it for ten seconds, so it does not flap. As on Apple's platforms,
/// an app lowers its frame rate at ``Level/serious`` and stops at ``Level/shutdown``; a
/// ``MovieFileOutput`` with ``MovieFileOutput/degradesUnderPressure`` does that itself.
public struct SystemPressureState: Sendable, Hashable, CustomStringConvertible {
    /// How pressed the machine is, from none to about to stop.
    public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// Nothing presses: everything can run at full rate.
        case nominal
        /// Some pressure: the machine keeps up, with little to spare.
        case fair
        /// The machine falls behind or throttles: lower the frame rate.
        case serious
        /// Close to failing: the lowest frame rate that does the job.
        case critical
        /// The system is about to stop the work (a critical trip point): finish now.
        case shutdown

        /// Whether `lhs` is less pressed than `rhs`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name, as AVFoundation spells it.
        public var description: String {
            switch self {
            case .nominal: "nominal"
            case .fair: "fair"
            case .serious: "serious"
            case .critical: "critical"
            case .shutdown: "shutdown"
            }
        }
    }

    /// What is behind a level; empty at ``Level/nominal``.
    public struct Factors: OptionSet, Sendable, Hashable, CustomStringConvertible {
        /// The factors' bits.
        public let rawValue: Int
        /// Factors from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A thermal zone near or past a trip point, or the firmware throttling for heat.
        public static let systemTemperature = Factors(rawValue: 1 << 0)
        /// The supply cannot carry the load: the Raspberry Pi firmware reports under-voltage.
        public static let peakPower = Factors(rawValue: 1 << 1)
        /// Tasks wait for a CPU (the kernel's pressure stall information, `some avg10`).
        public static let cpuContention = Factors(rawValue: 1 << 2)
        /// A recording falls behind: frames wait for its encoder or are dropped.
        public static let recordingLag = Factors(rawValue: 1 << 3)

        /// The factors' names, joined with "+"; "none" when empty.
        public var description: String {
            let names = [(Factors.systemTemperature, "systemTemperature"), (.peakPower, "peakPower"),
                         (.cpuContention, "cpuContention"), (.recordingLag, "recordingLag")]
                .filter { contains($0.0) }.map(\.1)
            return names.isEmpty ? "none" : names.joined(separator: "+")
        }
    }

    /// How pressed the machine is.
    public var level: Level
    /// What is behind the level.
    public var factors: Factors

    /// A state at `level` for `factors`.
    public init(level: Level, factors: Factors) {
        self.level = level
        self.factors = factors
    }

    /// No pressure at all.
    public static let nominal = SystemPressureState(level: .nominal, factors: [])

    /// The level, and the factors when there are any: `serious (systemTemperature)`.
    public var description: String { factors.isEmpty ? "\(level)" : "\(level) (\(factors))" }
}
