import Synchronization

/// Runs callbacks one at a time, in the order they were enqueued, never while a lock of the
/// caller is held: the way this library hands values to application code.
///
/// A producer enqueues while holding its own lock, so deliveries keep the order of the state
/// changes they report, then calls ``drain()`` after releasing it. Whichever thread finds no
/// delivery under way runs the queue until it is empty; others return at once and their work
/// runs on that thread, in order. A callback that enqueues more (a re-entrant change) has it run
/// after it returns, by the same drain. The queue's own mutex is a leaf: nothing runs under it.
package final class SerialDelivery: Sendable {
    private struct State {
        var queue: [@Sendable () -> Void] = []
        var running = false
    }

    private let state = LockedValue(State())

    package init() {}

    /// Adds `work` to the queue; it runs at the next ``drain()``.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.queue.append(work) }
    }

    /// Runs the queued work unless another thread is already doing so; returns when the queue
    /// is empty or another thread has it.
    package func drain() {
        guard var batch = begin() else { return }
        while true {
            for work in batch { work() }
            guard let next = continueOrFinish() else { return }
            batch = next
        }
    }

    /// Enqueues `work` and drains.
    package func deliver(_ work: @escaping @Sendable () -> Void) {
        enqueue(work)
        drain()
    }

    /// Takes the queue and the delivering role, if nobody has it and there is work.
    private func begin() -> [@Sendable () -> Void]? {
        state.withLock { s in
            guard !s.running, !s.queue.isEmpty else { return nil }
            s.running = true
            defer { s.queue = [] }
            return s.queue
        }
    }

    /// Takes what was enqueued meanwhile, or gives up the delivering role when nothing was.
    private func continueOrFinish() -> [@Sendable () -> Void]? {
        state.withLock { s in
            guard !s.queue.isEmpty else {
                s.running = false
                return nil
            }
            defer { s.queue = [] }
            return s.queue
        }
    }
}
