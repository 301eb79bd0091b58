import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// One run of a source's capture thread, from `start` to `stop`: the request to stop, and the
/// waits that request interrupts.
package final class CaptureRun: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = ConditionLock()
    private var stopRequested = false
    private var finished = false
    private var thread: pthread_t?
    private var stopSignals: [WakeSignal] = []
    private var stopPipes: [WakePipe] = []

    package init() {}

    /// A Boolean value that indicates whether the run was asked to stop.
    package var isStopRequested: Bool { lock.withLock { stopRequested } }

    /// A Boolean value that indicates whether the run has delivered its last event, or its body
    /// has returned.
    package var hasFinished: Bool { lock.withLock { finished } }

    /// A Boolean value that indicates whether the caller is the run's capture thread.
    package var isCurrentThread: Bool {
        lock.withLock { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Asks the capture thread to stop and wakes it from ``wait(until:)`` and from any wait on
    /// a signal registered with ``wakeOnStop(_:)``.
    package func requestStop() {
        let (signals, pipes) = lock.withLock {
            stopRequested = true
            lock.broadcast()
            return (stopSignals, stopPipes)
        }
        for signal in signals { signal.wake() }
        for pipe in pipes { pipe.wake() }
    }

    /// Makes a stop request wake `pipe` too, so a thread blocked in `poll` on its read end sees
    /// the request; wakes it at once when the stop was already requested.
    package func wakeOnStop(_ pipe: WakePipe) {
        let stopped = lock.withLock {
            if !stopRequested, !stopPipes.contains(where: { $0 === pipe }) { stopPipes.append(pipe) }
            return stopRequested
        }
        if stopped { pipe.wake() }
    }

    /// Makes a stop request wake `signal` too, so a thread waiting on it sees the request; wakes
    /// it at once when the stop was already requested.
    package func wakeOnStop(_ signal: WakeSignal) {
        let stopped = lock.withLock {
            if !stopRequested, !stopSignals.contains(where: { $0 === signal }) { stopSignals.append(signal) }
            return stopRequested
        }
        if stopped { signal.wake() }
    }

    /// Waits until `deadline` on ``MonotonicClock``, or until a stop is requested.
    /// - Returns: `true` when the deadline was reached, `false` when the run was asked to stop.
    package func wait(until deadline: UInt64) -> Bool {
        lock.withLock {
            while !stopRequested {
                if MonotonicClock.now() >= deadline { return true }
                _ = lock.wait(until: deadline)
            }
            return false
        }
    }

    /// Delivers the run's last event (`.ended` or `.interrupted`) through `deliver`, having
    /// first marked the run finished, so that a `start` the event prompts begins a new run
    /// instead of finding this one still going.
    package func finish(_ deliver: () -> Void) {
        lock.withLock { finished = true }
        deliver()
    }

    func enter() { lock.withLock { thread = pthread_self() } }
    func exit() { lock.withLock { finished = true } }
}
