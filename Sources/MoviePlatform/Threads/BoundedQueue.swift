import MovieContainer
/// A first-in first-out queue between two dedicated threads with a fixed capacity.
///
/// A producer either waits for room (``push(_:)``, back-pressure) or never waits and learns that
/// the element was refused (``offer(_:)``, for producers that must not stall, such as capture,
/// which then drops and counts). ``close()`` ends it: consumers drain what is left, then get
/// `nil`.
package final class BoundedQueue<Element>: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = ConditionLock()
    private var buffer: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false
    package let capacity: Int

    /// How many elements wait in the queue now.
    package var waiting: Int { lock.withLock { count } }

    package init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        buffer = Array(repeating: nil, count: capacity)
    }

    private func append(_ element: Element) {
        buffer[(head + count) % capacity] = element
        count += 1
        lock.broadcast()
    }

    /// Adds an element if there is room; returns false (and keeps nothing) when full or closed.
    package func offer(_ element: Element) -> Bool {
        lock.withLock {
            guard !closed, count < capacity else { return false }
            append(element)
            return true
        }
    }

    /// Adds an element if fewer than `limit` (at most the capacity) are waiting: a queue that
    /// usually holds fewer than it can, with the rest kept for moments its producer chooses.
    package func offer(_ element: Element, limit: Int) -> Bool {
        lock.withLock {
            guard !closed, count < min(limit, capacity) else { return false }
            append(element)
            return true
        }
    }

    /// Adds an element, waiting for room; returns false when the queue is closed.
    @discardableResult
    package func push(_ element: Element) -> Bool {
        lock.withLock {
            while !closed && count == capacity { lock.wait() }
            guard !closed else { return false }
            append(element)
            return true
        }
    }

    /// Removes the oldest element, waiting for one; `nil` once closed and empty.
    package func pop() -> Element? {
        lock.withLock {
            while count == 0 && !closed { lock.wait() }
            return take()
        }
    }

    /// Like ``pop()`` but gives up at `deadline` (monotonic nanoseconds).
    package func pop(until deadline: UInt64) -> Element?? {
        lock.withLock {
            while count == 0 && !closed {
                if !lock.wait(until: deadline) && count == 0 && !closed { return .some(nil) }
            }
            return .some(take())
        }
    }

    private func take() -> Element? {
        guard count > 0 else { return nil }
        let element = buffer[head]
        buffer[head] = nil
        head = (head + 1) % capacity
        count -= 1
        lock.broadcast()
        return element
    }

    /// Keeps the oldest element and those after it that `keep` accepts given the oldest, in
    /// order, dropping the rest; returns how many were dropped. Producers waiting for room wake.
    package func thin(_ keep: (_ oldest: Element, _ element: Element) -> Bool) -> Int {
        lock.withLock {
            guard count > 1, let oldest = buffer[head] else { return 0 }
            var kept: [Element] = [oldest]
            for offset in 1..<count {
                let element = buffer[(head + offset) % capacity]!
                if keep(oldest, element) { kept.append(element) }
            }
            let dropped = count - kept.count
            for offset in 0..<count { buffer[(head + offset) % capacity] = offset < kept.count ? kept[offset] : nil }
            count = kept.count
            if dropped > 0 { lock.broadcast() }
            return dropped
        }
    }

    /// Ends the queue: pushes fail, pops drain what is left and then return `nil`.
    package func close() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
    }

    package var isEmpty: Bool { lock.withLock { count == 0 } }

    /// A Boolean value that indicates whether ``close()`` was called, for a producer that does a
    /// lot of work between pushes and should stop early.
    package var isClosed: Bool { lock.withLock { closed } }
}
