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

    /// A Boolean value that indicates whether the run was asked to stop.
    package var isStopRequested: Bool { lock.withLock { stopRequested } }

    /// A Boolean value that indicates whether the run has delivered its last event, or its body
    /// has returned.
    package var hasFinished: Bool { lock.withLock { finished } }

    /// A Boolean value that indicates whether the caller is the run's capture thread.
    package var isCurrentThread: Bool {
        lock.withLock { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Asks the capture thread to stop and wakes it from ``wait(until:)``.
    package func requestStop() {
        lock.withLock {
            stopRequested = true
            lock.broadcast()
        }
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

    fileprivate func enter() { lock.withLock { thread = pthread_self() } }
    fileprivate func exit() { lock.withLock { finished = true } }
}

/// The dedicated thread a synthetic or file source captures on, and the rules for starting and
/// stopping it.
///
/// - `start` while a run is under way throws ``SourceError/Code/alreadyRunning``. Once the run
///   has ended by itself (its last event, `.ended` or `.interrupted`, is delivered through
///   ``CaptureRun/finish(_:)``) or was stopped, `start` begins a new run from the beginning,
///   even from the handler of that last event.
/// - `stop` asks the run to end, wakes it from any wait and joins the thread; it returns at once
///   when nothing runs, and a second concurrent `stop` waits for the first. Called from the
///   handler (on the capture thread itself), it cannot wait for its own thread: it detaches it,
///   and no further events follow once the handler returns.
/// - Releasing the last reference stops and joins a run that is still going.
package final class SourceThread: @unchecked Sendable {
    // @unchecked: `state` is guarded by `lock`.
    private let lock = ConditionLock()
    private var state = State.idle
    private let sourceName: String
    private let threadName: String

    private enum State {
        case idle
        case running(DedicatedThread, CaptureRun)
        case stopping(CaptureRun)
    }

    /// - Parameters:
    ///   - sourceName: the source's name, for errors.
    ///   - threadName: the thread's name (at most 15 characters show in `top`).
    package init(sourceName: String, threadName: String) {
        self.sourceName = sourceName
        self.threadName = threadName
    }

    deinit {
        if case .running(let thread, let run) = state {
            run.requestStop()
            if run.isCurrentThread { pthread_detach(pthread_self()) } else { thread.join() }
        }
    }

    /// Starts `body` on a new dedicated thread.
    /// - Throws: ``SourceError`` with ``SourceError/Code/alreadyRunning`` when a run is under
    ///   way or stopping.
    package func start(_ body: @escaping @Sendable (CaptureRun) -> Void) throws(SourceError) {
        // A run that ended by itself: wait for its thread to return, without holding the lock,
        // since the handler of its last event may still call `stop()`.
        let previous: DedicatedThread? = lock.withLock {
            guard case .running(let thread, let run) = state, run.hasFinished else { return nil }
            if run.isCurrentThread {
                pthread_detach(pthread_self())
                state = .idle
                return nil
            }
            state = .stopping(run)
            return thread
        }
        if let previous {
            previous.join()
            lock.withLock {
                state = .idle
                lock.broadcast()
            }
        }
        let started = lock.withLock {
            guard case .idle = state else { return false }
            let run = CaptureRun()
            let thread = DedicatedThread(name: threadName) {
                run.enter()
                body(run)
                run.exit()
            }
            state = .running(thread, run)
            return true
        }
        guard started else {
            throw SourceError(.alreadyRunning, source: sourceName, step: "starting",
                              "the source is already capturing; call stop() before starting it again")
        }
    }

    /// Asks the run to stop and waits for its thread to end.
    package func stop() {
        let running: (DedicatedThread, CaptureRun)? = lock.withLock {
            while true {
                switch state {
                case .idle:
                    return nil
                case .stopping(let run):
                    if run.isCurrentThread { return nil }
                    lock.wait()
                case .running(let thread, let run):
                    run.requestStop()
                    if run.isCurrentThread {
                        pthread_detach(pthread_self())
                        state = .idle
                        return nil
                    }
                    state = .stopping(run)
                    return (thread, run)
                }
            }
        }
        guard let (thread, _) = running else { return }
        thread.join()
        lock.withLock {
            state = .idle
            lock.broadcast()
        }
    }
}

/// Capture times on ``MonotonicClock`` for equally spaced items — video frames or audio sample
/// frames: item `n` is at `start + n × seconds / count`, in whole nanoseconds rounded down from
/// the exact rational value, so no error accumulates however long a run lasts.
package struct CaptureTimeline: Sendable {
    /// The time of item 0, in nanoseconds.
    package let start: UInt64
    /// Items per `seconds`: frames, or the sample rate.
    package let count: UInt64
    package let seconds: UInt64

    package init(start: UInt64, count: UInt64, seconds: UInt64 = 1) {
        precondition(count > 0 && seconds > 0)
        self.start = start
        self.count = count
        self.seconds = seconds
    }

    /// The time of item `n`.
    package func time(of n: UInt64) -> UInt64 {
        let product = (n * seconds).multipliedFullWidth(by: 1_000_000_000)
        return start + count.dividingFullWidth(product).quotient
    }

    /// The last item whose time is at or before `time` (0 before the start).
    package func index(at time: UInt64) -> UInt64 {
        guard time > start else { return 0 }
        let product = (time - start).multipliedFullWidth(by: count)
        var n = (seconds * 1_000_000_000).dividingFullWidth(product).quotient
        while n > 0, self.time(of: n) > time { n -= 1 }
        while self.time(of: n + 1) <= time { n += 1 }
        return n
    }
}

extension PixelBufferPool {
    /// Borrows a buffer for a frame. A live source must not wait: it gets `nil` when every
    /// buffer is out, and drops the frame. Any other source waits for a consumer to release
    /// one, checking every millisecond, and gets `nil` only when `run` is asked to stop.
    package func lease(live: Bool, run: CaptureRun) -> Lease? {
        if let lease = lease() { return lease }
        guard !live else { return nil }
        while run.wait(until: MonotonicClock.now() + 1_000_000) {
            if let lease = lease() { return lease }
        }
        return nil
    }
}
