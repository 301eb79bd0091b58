import MoviePlatform
import Synchronization

/// Where the library's log messages go, including those of the C libraries it uses (libx264's).
///
/// The library never prints. Until an application calls ``bootstrap(minimumLevel:handler:)``,
/// messages are dropped; failures still reach the application as thrown errors and recording
/// results. The handler is called on the thread that logs (a capture or encoding thread), never
/// while the library holds a lock, and must return promptly. To forward to swift-log, call a
/// `Logger` from the handler, mapping ``LogLevel`` to `Logger.Level` case by case (they have the
/// same names).
public enum MovieRecorderLogging {
    private struct Configuration: Sendable {
        var minimumLevel: LogLevel = .critical
        var handler: (@Sendable (LogMessage) -> Void)?
    }

    private static let configuration = LockedValue(Configuration())

    /// Sends messages at `minimumLevel` and above to `handler`, replacing any earlier handler.
    /// Encoders opened afterwards use the level too.
    /// - Parameters:
    ///   - minimumLevel: The least severe level passed on; `.info` by default.
    ///   - handler: Called with each message, on the thread that logs it.
    public static func bootstrap(minimumLevel: LogLevel = .info, handler: @escaping @Sendable (LogMessage) -> Void) {
        configuration.withLock { $0 = Configuration(minimumLevel: minimumLevel, handler: handler) }
    }

    /// Removes the handler: messages are dropped again.
    public static func shutdown() {
        configuration.withLock { $0 = Configuration() }
    }

    /// The least severe level a handler receives, or `nil` while no handler is installed.
    public static var minimumLevel: LogLevel? {
        configuration.withLock { $0.handler == nil ? nil : $0.minimumLevel }
    }

    /// Logs `text` from `component` at `level`; the text is built only when it is passed on.
    package static func log(_ level: LogLevel, _ component: String, _ text: @autoclosure () -> String) {
        let handler = configuration.withLock { $0.handler != nil && level >= $0.minimumLevel ? $0.handler : nil }
        // Called after the lock is released: the application's code never runs under it.
        handler?(LogMessage(level: level, component: component, text: text()))
    }
}
