/// One message the library logs: how severe it is, which component it comes from and its text.
public struct LogMessage: Sendable, CustomStringConvertible {
    /// How severe the message is.
    public let level: LogLevel
    /// The component that logged it, such as `x264` for libx264's own messages.
    public let component: String
    /// The message, one line without a trailing newline.
    public let text: String

    /// Creates a message.
    /// - Parameters:
    ///   - level: How severe the message is.
    ///   - component: The component that logged it.
    ///   - text: The message.
    public init(level: LogLevel, component: String, text: String) {
        self.level = level
        self.component = component
        self.text = text
    }

    /// The message as `component [level]: text`, the way x264 prints its own.
    public var description: String { "\(component) [\(level)]: \(text)" }
}
