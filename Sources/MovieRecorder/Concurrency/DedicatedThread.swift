#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own for blocking work — device reads, encoding, file writes — so it never
/// occupies a thread of Swift's cooperative pool.
final class DedicatedThread: @unchecked Sendable {
    // @unchecked: `thread` is written once in `init` before anything else can see the object,
    // and read only by `join()`.
    private var thread = pthread_t()
    private let name: String

    private final class Box {
        let body: () -> Void
        let name: String
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (at most 15 characters show in `top`).
    init(name: String, _ body: @escaping @Sendable () -> Void) {
        self.name = name
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            DedicatedThread.nameCurrentThread(box.name)
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed for \(name): \(result)")
    }

    /// Names the calling thread for `top -H`, `ps -L` and debuggers by writing its `comm` file
    /// (proc(5)), as glibc's `pthread_setname_np` does; Swift's Glibc module does not export that
    /// function. The kernel keeps the first 15 bytes.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Waits for the thread to end.
    func join() {
        pthread_join(thread, nil)
    }

    /// Lets the thread's resources go when it ends, for a thread nobody joins.
    func detach() {
        pthread_detach(thread)
    }
}

/// A mutex with a condition variable, for the blocking hand-offs between dedicated threads.
final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects are only touched through the pthread calls, which
    // synchronise by design.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
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

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call with the lock held (inside `withLock`).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal or until `deadline` (monotonic nanoseconds); returns false on timeout.
    func wait(until deadline: UInt64) -> Bool {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &ts) == 0
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}

/// Time on the system's monotonic clock, the one clock every source stamps its media with.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (boot), never going backwards (`CLOCK_MONOTONIC`,
    /// the clock V4L2 stamps buffers with).
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps until `deadline` (monotonic nanoseconds).
    static func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
