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

/// A gravity source whose readings carry the time each was taken, on `MonotonicClock`, in
/// nanoseconds: an accelerometer's buffer delivers several samples at once, and a detector that
/// looks at a window of readings needs them spaced as they were measured.
package protocol TimedGravitySource: GravitySource {
    /// Starts reporting readings with their times to `handler`; readings arrive in order.
    func start(timedHandler: @escaping @Sendable (GravityVector, UInt64) -> Void) throws
}
