#if canImport(Glibc)
import Glibc
#endif

/// A signalled wait for "something changed": a waiter notes ``generation``, checks its own
/// condition without any lock of this signal held, and if it must wait calls
/// ``wait(after:)``, which returns once ``wake()`` has been called since. No polling, and no
/// wake-up is lost between the check and the wait.
package final class WakeSignal: @unchecked Sendable {
    // @unchecked: `count` is guarded by `lock`.
    private let lock = ConditionLock()
    private var count: UInt64 = 0

    package init() {}

    /// The number of wake-ups so far; pass it to ``wait(after:)``.
    package var generation: UInt64 { lock.withLock { count } }

    /// Wakes every waiter.
    package func wake() {
        lock.withLock {
            count &+= 1
            lock.broadcast()
        }
    }

    /// Waits until ``wake()`` has been called after `seen` was read from ``generation``.
    package func wait(after seen: UInt64) {
        lock.withLock {
            while count == seen { lock.wait() }
        }
    }
}
