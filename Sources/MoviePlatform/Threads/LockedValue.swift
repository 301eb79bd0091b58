#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a `pthread` mutex: the lock this package uses instead of the standard
/// library's `Mutex`.
///
/// `Synchronization.Mutex` on Linux locks with futex system calls that ThreadSanitizer cannot
/// see, so every access it guards is reported as a race; a `pthread` mutex is one TSan models.
/// Like `Mutex`, it is not recursive, and no code of another object may run inside ``withLock(_:)``
/// (the rule in the documentation's concurrency article).
package final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `value` is only reached through `withLock`, under `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
