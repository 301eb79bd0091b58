import MovieContainer
#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable, for the blocking hand-offs between dedicated threads.
package final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects are only touched through the pthread calls, which
    // synchronise by design.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call with the lock held (inside `withLock`).
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal or until `deadline` (monotonic nanoseconds); returns false on timeout.
    package func wait(until deadline: UInt64) -> Bool {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &ts) == 0
    }

    package func broadcast() { pthread_cond_broadcast(condition) }
}

