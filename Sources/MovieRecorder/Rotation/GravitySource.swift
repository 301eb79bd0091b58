/// A source of the device's gravity vector: the Linux IIO accelerometer, or a manual source an
/// application or test sets.
///
/// A source reports on a thread of its own (or the caller's, for a manual source), in order.
public protocol GravitySource: AnyObject, Sendable {
    /// The latest reading, or `nil` before the first.
    var currentGravity: GravityVector? { get }
    /// Starts reporting readings to `handler`; readings arrive in order.
    func start(handler: @escaping @Sendable (GravityVector) -> Void) throws
    /// Stops reporting and waits for the reporting thread to end.
    func stop()
}
