/// The photos in flight — from the moment one is admitted until its file is final — bounded by
/// a limit; requests beyond it wait, first come first served, for a photo to finish.
///
/// A request's number (its ticket, the order its results come in) is given when it is admitted,
/// under the same lock, so the order of tickets is the order of admission: a later request can
/// never hold a slot that an earlier one's turn waits for.
struct PhotoSlots {
    /// What an admitted request learns: its ticket, and whether another photo was in flight when
    /// it got its slot (fast capture prioritization speeds up such a photo).
    struct Admission: Sendable {
        var ticket: UInt64
        var crowded: Bool
    }

    /// A waiting request's continuation, resumed with its admission or `nil` when cancelled.
    typealias Waiter = CheckedContinuation<Admission?, Never>

    /// Photos admitted and not finished.
    private(set) var inFlight = 0
    private var nextTicket: UInt64 = 0
    private var queue: [(id: UInt64, waiter: Waiter)] = []
    private var idle: [CheckedContinuation<Void, Never>] = []

    /// Admits request `id` at once when fewer than `limit` are in flight and none waits before
    /// it (returns its admission, for the caller to resume it after its lock), else queues it.
    mutating func acquire(_ id: UInt64, limit: Int, _ waiter: Waiter) -> Admission? {
        guard inFlight < limit, queue.isEmpty else {
            queue.append((id, waiter))
            return nil
        }
        return admit()
    }

    /// Takes request `id` out of the queue (its task was cancelled); returns its continuation to
    /// resume with `nil`, or `nil` when it was already admitted.
    mutating func cancel(_ id: UInt64) -> Waiter? {
        guard let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
        return queue.remove(at: index).waiter
    }

    /// Ends one photo and admits as many waiting requests as `limit` allows; returns them to
    /// resume after the lock.
    mutating func release(limit: Int) -> [(Waiter, Admission)] {
        inFlight -= 1
        return admitWaiting(limit: limit)
    }

    /// Admits waiting requests up to `limit` (after the limit was raised, or a slot freed).
    mutating func admitWaiting(limit: Int) -> [(Waiter, Admission)] {
        var admitted: [(Waiter, Admission)] = []
        while inFlight < limit, !queue.isEmpty {
            admitted.append((queue.removeFirst().waiter, admit()))
        }
        return admitted
    }

    private mutating func admit() -> Admission {
        inFlight += 1
        defer { nextTicket += 1 }
        return Admission(ticket: nextTicket, crowded: inFlight > 1)
    }

    /// The callers of ``waitUntilIdle(_:)`` to resume when nothing is in flight or waiting.
    mutating func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
        guard inFlight == 0, queue.isEmpty else { return [] }
        defer { idle = [] }
        return idle
    }

    /// Returns `continuation` to resume at once when nothing is in flight, else keeps it for
    /// ``takeIdleWaiters()``.
    mutating func waitUntilIdle(_ continuation: CheckedContinuation<Void, Never>) -> CheckedContinuation<Void, Never>? {
        guard inFlight > 0 || !queue.isEmpty else { return continuation }
        idle.append(continuation)
        return nil
    }
}
