/// How severe a log message is: the levels of swift-log's `Logger.Level`, in the same order.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
    /// Detail for tracing the library's own work.
    case trace
    /// Detail useful while debugging an application.
    case debug
    /// Something worth knowing that needs no action, such as the encoder's chosen profile.
    case info
    /// A normal but significant event.
    case notice
    /// Something unexpected that the library worked around.
    case warning
    /// A failure of one operation; the library also reports it as a thrown or recorded error.
    case error
    /// A failure the library cannot go on from.
    case critical

    /// Orders levels from ``trace`` (least severe) to ``critical``.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's name, such as `warning`.
    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }
}
