import MovieContainer
import MoviePlatform

/// Why a source stopped delivering before it was asked to.
public struct InterruptionReason: Hashable, Sendable, CustomStringConvertible {
    /// The source's name: a device path or name.
    public var source: String
    /// What happened, in words a user can act on.
    public var message: String
    /// When it happened, on ``MonotonicClock``.
    public var timestamp: UInt64

    /// Creates a reason.
    /// - Parameters:
    ///   - source: The source's name: a device path or name.
    ///   - message: What happened, in words a user can act on.
    ///   - timestamp: When it happened on ``MonotonicClock``; now by default.
    public init(source: String, message: String, timestamp: UInt64 = MonotonicClock.now()) {
        self.source = source
        self.message = message
        self.timestamp = timestamp
    }

    /// A textual representation of the reason: the source's name, then the message.
    public var description: String { "\(source): \(message)" }
}
