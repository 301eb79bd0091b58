#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Scheduling for a thread with a deadline the hardware sets, such as a sound card's capture
/// buffer, which is lost when its reader is not scheduled in time.
package enum ThreadPriority {
    /// The real-time priority asked for: low, as audio servers use, below the kernel's own
    /// threaded interrupts (50).
    package static let realtimeLevel: Int32 = 10

    /// Moves the calling thread to `SCHED_FIFO` at ``realtimeLevel`` when the process may (root,
    /// `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` of at least that level); otherwise leaves it as it was.
    /// - Returns: Whether the thread now runs at real-time priority.
    @discardableResult
    package static func requestRealtime() -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = realtimeLevel
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    /// Lowers the calling thread's scheduling priority by `niceness` from where it is (Linux
    /// keeps a nice value per thread), so that under load the threads that record win over it.
    /// Any process may.
    package static func lower(by niceness: Int32) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue), thread = id_t(CLinux_gettid())
        errno = 0
        let current = getpriority(which, thread)
        guard errno == 0 else { return }
        _ = setpriority(which, thread, min(19, current + niceness))
    }
}
