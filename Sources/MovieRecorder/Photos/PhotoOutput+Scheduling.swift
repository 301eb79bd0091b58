import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// Admission, ordered turns and readiness: every change to what a shutter button shows goes
// through `mutate`, which queues the new readiness for each coordinator under the lock and
// delivers it after.
extension PhotoOutput {
    /// Which of the two orders a photo waits its turn in.
    enum Turn {
        /// `capturePhoto` returning.
        case returning
        /// The photo's last event (its final file).
        case reporting
    }

    /// Changes the state, then delivers the readiness changes it made, in order, outside the lock.
    @discardableResult
    func mutate<T>(_ body: (inout State) -> T) -> T {
        let (value, deliveries) = state.withLock { s -> (T, [SerialDelivery]) in
            let value = body(&s)
            return (value, Self.queueReadiness(&s))
        }
        for delivery in deliveries { delivery.drain() }
        return value
    }

    /// Queues each coordinator's readiness where it changed; returns the deliveries to drain.
    private static func queueReadiness(_ s: inout State) -> [SerialDelivery] {
        var changed: [SerialDelivery] = []
        for (key, link) in s.links {
            let now = readiness(connected: s.sources?.video != nil, tracked: link.tracked.values,
                                inFlight: s.slots.inFlight, limit: s.limit)
            guard now != link.last else { continue }
            s.links[key]?.last = now
            let continuation = link.continuation
            link.delivery.enqueue { continuation.yield(now) }
            changed.append(link.delivery)
        }
        return changed
    }

    /// Sets the phase of request `uniqueID` in every coordinator that tracks it; `nil` stops
    /// tracking it.
    static func setPhase(_ phase: TrackedPhase?, of uniqueID: Int64, in s: inout State) {
        for key in s.links.keys where s.links[key]?.tracked[uniqueID] != nil {
            s.links[key]?.tracked[uniqueID] = phase
        }
    }

    /// Waits for a slot among the photos in flight, then numbers the request; the request then
    /// waits for its frame. `crowded` says whether another photo was in flight when it got its
    /// slot (for fast capture prioritization).
    /// - Throws: `CancellationError` when the task is cancelled while it waits for a slot.
    func admit(_ uniqueID: Int64) async throws -> PhotoSlots.Admission {
        let id = state.withLock { s in
            s.lastRequestID += 1
            return s.lastRequestID
        }
        let admission = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: PhotoSlots.Waiter) in
                let now = mutate { s -> PhotoSlots.Admission? in
                    let admission = s.slots.acquire(id, limit: s.limit, waiter)
                    Self.setPhase(admission == nil ? .waitingForSlot : .waitingForFrame, of: uniqueID, in: &s)
                    return admission
                }
                if let now { waiter.resume(returning: now) }
            }
        } onCancel: {
            let waiter = mutate { s in s.slots.cancel(id) }
            waiter?.resume(returning: nil)
        }
        guard let admission else {
            mutate { Self.setPhase(nil, of: uniqueID, in: &$0) }
            throw CancellationError()
        }
        mutate { Self.setPhase(.waitingForFrame, of: uniqueID, in: &$0) }
        return admission
    }

    /// Waits until it is `ticket`'s turn.
    func waitForTurn(_ turn: Turn, _ ticket: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s in
                turn == .returning ? s.returns.wait(for: ticket, continuation) : s.reports.wait(for: ticket, continuation)
            }
            now?.resume()
        }
    }

    /// Ends `ticket`'s turn, letting the next one go.
    func passTurn(_ turn: Turn, _ ticket: UInt64) {
        let next = state.withLock { s in turn == .returning ? s.returns.pass(ticket) : s.reports.pass(ticket) }
        next?.resume()
    }

    /// Waits for `ticket`'s reporting turn, yields `event` if any, passes the turn and frees its
    /// slot.
    func report(_ event: Event?, _ ticket: UInt64) async {
        await waitForTurn(.reporting, ticket)
        if let event { eventContinuation.yield(event) }
        passTurn(.reporting, ticket)
        let (admitted, idle) = mutate { s in (s.slots.release(limit: s.limit), s.slots.takeIdleWaiters()) }
        for (waiter, admission) in admitted { waiter.resume(returning: admission) }
        for continuation in idle { continuation.resume() }
    }

    // MARK: Coordinators

    /// Connects a coordinator's stream; returns its key and the readiness now.
    func link(_ continuation: AsyncStream<CaptureReadiness>.Continuation) -> ObjectIdentifier {
        let delivery = SerialDelivery()
        let key = ObjectIdentifier(delivery)
        mutate { $0.links[key] = ReadinessLink(continuation: continuation, delivery: delivery) }
        return key
    }

    func unlink(_ key: ObjectIdentifier) {
        let link = state.withLock { $0.links.removeValue(forKey: key) }
        link?.continuation.finish()
    }

    func track(_ uniqueID: Int64, for key: ObjectIdentifier, _ tracked: Bool) {
        mutate { s in s.links[key]?.tracked[uniqueID] = tracked ? .announced : nil }
    }

    func readiness(for key: ObjectIdentifier) -> CaptureReadiness {
        state.withLock { s in
            Self.readiness(connected: s.sources?.video != nil, tracked: s.links[key]?.tracked.values ?? [:].values,
                           inFlight: s.slots.inFlight, limit: s.limit)
        }
    }
}
