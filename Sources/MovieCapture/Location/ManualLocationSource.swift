import MoviePlatform

/// A location source the application feeds: positions from a receiver the library does not
/// know, or a test's. ``report(_:)`` hands the event to the handler on the calling thread
/// before it returns; report from one thread to keep the order.
public final class ManualLocationSource: LocationSource, @unchecked Sendable {
    // @unchecked: `handler` is guarded by `lock`, which is never held while it runs.
    private let lock = ConditionLock()
    private var handler: (@Sendable (LocationEvent) -> Void)?

    /// Creates a source that reports nothing until ``report(_:)``.
    public init() {}

    /// Hands the events reported from now on to `handler`.
    public func start(handler: @escaping @Sendable (LocationEvent) -> Void) {
        lock.withLock { self.handler = handler }
    }

    /// Stops reporting; a ``report(_:)`` already under way on another thread still finishes.
    public func stop() {
        lock.withLock { handler = nil }
    }

    /// Hands `event` to the handler, if started.
    public func report(_ event: LocationEvent) {
        lock.withLock { handler }?(event)
    }
}
