import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif

/// A gravity source the application or a test sets: for a device without an accelerometer, a
/// camera on a stand whose rotation the user picks, or a test that turns a device by hand.
///
/// ``set(_:)`` and ``setRotation(clockwiseDegrees:)`` hand the vector to the handler on the
/// calling thread before they return, so values arrive synchronously and in the order they
/// were set. A value set from the handler itself is queued and delivered by the call already
/// delivering, right after the value before it; a value set from another thread while a
/// delivery is under way waits for that delivery to end. So the order holds, the handler is
/// never entered twice at once, and values never pile up faster than the handler takes them. ``start(handler:)`` delivers the current value, if one was
/// set, before it returns, as an accelerometer delivers its first reading at once.
public final class ManualGravitySource: GravitySource, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = ConditionLock()
    private var current: GravityVector?
    private var handler: (@Sendable (GravityVector) -> Void)?
    /// Values set but not yet handed to the handler.
    private var pending: [GravityVector] = []
    /// The thread handing out `pending`, if any.
    private var deliveringThread: pthread_t?

    /// Creates a source holding `initial`, or nothing until the first ``set(_:)``.
    public init(_ initial: GravityVector? = nil) {
        current = initial
    }

    /// The vector set last, or `nil` before the first.
    public var currentGravity: GravityVector? { lock.withLock { current } }

    /// Sets the gravity vector and hands it to the handler, if started.
    public func set(_ vector: GravityVector) {
        let mustDeliver: Bool = lock.withLock {
            waitForOtherDelivery()
            current = vector
            guard handler != nil else { return false }
            pending.append(vector)
            return claimDelivery()
        }
        if mustDeliver { deliverPending() }
    }

    /// Sets the vector of a device at rest, standing on its edge, turned `clockwiseDegrees`
    /// (0, 90, 180 or 270) from upright: ``GravityVector/upright(rotatedClockwise:)``.
    public func setRotation(clockwiseDegrees: Int) {
        set(.upright(rotatedClockwise: clockwiseDegrees))
    }

    /// Starts handing vectors to `handler`, beginning with the current one, if any.
    /// - Throws: ``GravitySourceError`` with ``GravitySourceError/Code/alreadyRunning`` when
    ///   already started.
    public func start(handler: @escaping @Sendable (GravityVector) -> Void) throws(GravitySourceError) {
        let mustDeliver: Bool? = lock.withLock {
            guard self.handler == nil else { return nil }
            self.handler = handler
            guard let current else { return false }
            pending.append(current)
            return claimDelivery()
        }
        guard let mustDeliver else {
            throw GravitySourceError(.alreadyRunning, path: "manual gravity source",
                                     "the source is already started; call stop() before starting it again")
        }
        if mustDeliver { deliverPending() }
    }

    /// Stops handing vectors out. A delivery under way on another thread finishes first; called
    /// from the handler, it returns at once. No value reaches the handler after `stop` returns.
    public func stop() {
        lock.withLock {
            handler = nil
            pending.removeAll()
            waitForOtherDelivery()
        }
    }

    /// Waits, with the lock held, until no other thread is delivering (a signalled wait: the
    /// delivering thread broadcasts when it is done).
    private func waitForOtherDelivery() {
        while let thread = deliveringThread, pthread_equal(thread, pthread_self()) == 0 {
            lock.wait()
        }
    }

    /// Makes the calling thread the one that delivers, unless another is; call with the lock
    /// held.
    /// - Returns: `true` when the caller must call ``deliverPending()``.
    private func claimDelivery() -> Bool {
        guard deliveringThread == nil else { return false }
        deliveringThread = pthread_self()
        return true
    }

    /// Hands the pending values to the handler, one at a time, without holding the lock while
    /// the handler runs, until none is left or the source is stopped.
    private func deliverPending() {
        while true {
            let next: (GravityVector, @Sendable (GravityVector) -> Void)? = lock.withLock {
                guard let handler, !pending.isEmpty else {
                    deliveringThread = nil
                    lock.broadcast()
                    return nil
                }
                return (pending.removeFirst(), handler)
            }
            guard let (vector, handler) = next else { return }
            handler(vector)
        }
    }
}
