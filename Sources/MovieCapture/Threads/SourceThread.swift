import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

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

extension PixelBufferPool {
    /// Borrows a buffer for a frame. A live source must not wait: it gets `nil` when every
    /// buffer is out, and drops the frame. Any other source waits until a consumer releases one
    /// (signalled by ``released``), and gets `nil` only when `run` is asked to stop.
    package func lease(live: Bool, run: CaptureRun) -> Lease? {
        if let lease = lease() { return lease }
        guard !live else { return nil }
        run.wakeOnStop(released)
        while true {
            let seen = released.generation
            if let lease = lease() { return lease }
            if run.isStopRequested { return nil }
            released.wait(after: seen)
        }
    }
}
