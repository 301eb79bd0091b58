/// Something that knows where the camera is, such as the application itself
/// (``ManualLocationSource``). A movie output records its fixes as a
/// timed location track.
public protocol LocationSource: AnyObject, Sendable {
    /// Starts reporting: `handler` receives each fix and each loss of the position, in order,
    /// never two at once, on a thread of the source's (never while it holds a lock).
    func start(handler: @escaping @Sendable (LocationEvent) -> Void)
    /// Stops reporting; the handler is not called again once a report under way has finished.
    func stop()
}

/// What a location source reports.
public enum LocationEvent: Hashable, Sendable {
    /// A new position.
    case fix(LocationFix)
    /// No position from now on until the next fix, and why: the daemon is gone, the receiver
    /// lost the sky. A movie's location track shows the gap.
    case unavailable(reason: String)
}
