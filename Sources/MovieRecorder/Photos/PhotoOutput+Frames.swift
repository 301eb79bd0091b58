import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// Choosing the frame: requests wait here until the ring's copies decide them.
extension PhotoOutput {
    /// Registers a request made at `moment`, at the call itself: from then on arriving frames are
    /// kept for it, and with zero shutter lag it holds the kept frames from
    /// ``zeroShutterLagDuration`` before the moment, so a call that waits for a slot or for a busy
    /// thread pool still chooses among the frames of its moment. Returns the request's number for ``chooseFrame(_:)``.
    func registerRequest(at moment: UInt64, zeroShutterLag: Bool, isLive: Bool, uniqueID: Int64) -> UInt64 {
        let entries = ring.entries
        let reach = state.withLock { $0.ringLimits.duration }
        let held = zeroShutterLag ? entries.filter { $0.frame.timestamp &+ reach >= moment } : []
        return state.withLock { s in
            s.lastRequestID += 1
            s.requests[s.lastRequestID] = FrameRequest(moment: moment, zeroShutterLag: zeroShutterLag, isLive: isLive, uniqueID: uniqueID,
                                                       held: held)
            return s.lastRequestID
        }
    }

    /// Withdraws request `id` before it chose a frame (it failed or was cancelled first).
    func withdrawRequest(_ id: UInt64) {
        let request = state.withLock { $0.requests.removeValue(forKey: id) }
        _ = request  // its held frames go here, outside the lock
    }

    /// The frame for request `id`: with zero shutter lag the frame closest to its moment, else
    /// the first frame captured after it (from a file, the next frame read, in request order);
    /// waits up to ``frameTimeout``.
    func chooseFrame(_ id: UInt64) async throws -> ChosenFrame {
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ChosenFrame, any Error>) in
                let (failure, timeout, sources) = state.withLock { s -> ((any Error)?, Duration, SourceDescription?) in
                    guard var request = s.requests[id] else { return (CancellationError(), .zero, nil) }
                    if request.cancelled {
                        s.requests[id] = nil
                        return (CancellationError(), .zero, nil)
                    }
                    guard s.sources?.video != nil else {
                        s.requests[id] = nil
                        return (Self.notConnected, .zero, nil)
                    }
                    request.continuation = continuation
                    s.requests[id] = request
                    return (nil, s.frameTimeout, s.sources)
                }
                if let failure {
                    continuation.resume(throwing: failure)
                    return
                }
                // The kept frames may decide it (and, from a file, the requests after it) at once.
                settleRequests()
                guard state.withLock({ $0.requests[id] != nil }) else { return }
                // A file source waits for an output to consume media: this one now does.
                sources?.wakeWaitingSources()
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    self?.timeOut(id, after: timeout)
                }
                let stillWaiting = state.withLock { s in
                    guard s.requests[id] != nil else { return false }
                    s.requests[id]?.timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<ChosenFrame, any Error>? in
                guard let request = s.requests[id] else { return nil }
                guard let continuation = request.continuation else {
                    s.requests[id]?.cancelled = true
                    return nil
                }
                s.requests[id] = nil
                request.timer?.cancel()
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The frame `request` takes from `entries`, or `nil` to wait; `timedOut` settles for the
    /// newest frame captured before the request when no later one came. A file photo takes a
    /// frame that reached the output after `lastFileFrame`.
    static func decide(_ request: FrameRequest, _ kept: [RecentFrameRing.Entry], timedOut: Bool,
                       after lastFileFrame: UInt64 = 0) -> ChosenFrame? {
        let now = SystemClock.unixSeconds()
        // The frames held since the call, then the kept ones captured after them.
        let newestHeld = request.held.last?.frame.timestamp ?? 0
        let entries = request.held + kept.filter { request.held.isEmpty || $0.frame.timestamp > newestHeld }
        guard request.zeroShutterLag else {
            // A live frame captured just before the call may reach the output after it: not the next.
            let next = entries.first { entry in
                entry.arrival > request.moment
                    && (request.isLive ? entry.frame.timestamp > request.moment : entry.arrival > lastFileFrame)
            }
            guard let next else { return nil }
            return ChosenFrame(frame: next.frame, arrival: next.arrival, fromRing: false, unixSeconds: now)
        }
        let timestamps = entries.map(\.frame.timestamp)
        switch ZeroShutterLagChoice.choose(timestamps: timestamps, at: request.moment,
                                           interval: ZeroShutterLagChoice.interval(of: timestamps)) {
        case .chosen(let index):
            return ChosenFrame(frame: entries[index].frame, arrival: entries[index].arrival, fromRing: true, unixSeconds: now)
        case .waitForNextFrame:
            guard timedOut, let newest = entries.last else { return nil }
            return ChosenFrame(frame: newest.frame, arrival: newest.arrival, fromRing: true, unixSeconds: now)
        }
    }

    /// Called on the ring's thread after each copy: settles the requests it decides.
    func ringAppended() {
        settleRequests()
    }

    /// Settles the waiting requests the kept frames decide. File photos go in request order,
    /// each taking the next frame after the one the photo before it took: none chooses while an
    /// earlier file photo has not, so none takes another's frame or skips one.
    private func settleRequests() {
        let entries = ring.entries
        let decided = state.withLock { s -> [(CheckedContinuation<ChosenFrame, any Error>, ChosenFrame, Task<Void, Never>?)] in
            var decided: [(CheckedContinuation<ChosenFrame, any Error>, ChosenFrame, Task<Void, Never>?)] = []
            var fileQueueBlocked = false
            for id in s.requests.keys.sorted() {
                guard let request = s.requests[id], request.isLive || !fileQueueBlocked else { continue }
                guard let continuation = request.continuation,
                      let chosen = Self.decide(request, entries, timedOut: false, after: s.lastFileFrameArrival) else {
                    fileQueueBlocked = fileQueueBlocked || !request.isLive
                    continue
                }
                if !request.isLive { s.lastFileFrameArrival = chosen.arrival }
                s.requests[id] = nil
                decided.append((continuation, chosen, request.timer))
            }
            return decided
        }
        for (continuation, chosen, timer) in decided {
            timer?.cancel()
            continuation.resume(returning: chosen)
        }
    }

    /// Called on the ring's thread when a frame no longer keeps it busy: a file source reads its
    /// next frame only while a request still wants one.
    func ringSettled() {
        let sources = state.withLock { $0.isWaitingForFrames ? $0.sources : nil }
        sources?.wakeWaitingSources()
    }

    /// Ends a request that waited `timeout`: with the closest earlier frame if there is one.
    private func timeOut(_ id: UInt64, after timeout: Duration) {
        let entries = ring.entries
        let settled = state.withLock { s -> (CheckedContinuation<ChosenFrame, any Error>, Result<ChosenFrame, any Error>)? in
            guard let request = s.requests[id], let continuation = request.continuation else { return nil }
            s.requests[id] = nil
            if let chosen = Self.decide(request, entries, timedOut: true, after: s.lastFileFrameArrival) {
                if !request.isLive { s.lastFileFrameArrival = max(s.lastFileFrameArrival, chosen.arrival) }
                return (continuation, .success(chosen))
            }
            return (continuation, .failure(PhotoError(
                .timedOut, "PhotoOutput: no video frame arrived within \(timeout); check that the session's video input is delivering")))
        }
        settled.map { $0.0.resume(with: $0.1) }
    }

    /// Ends every request waiting for a frame: with the closest kept frame before it when
    /// `settling` (the source ended, so no later frame will come), else with `error`.
    func failWaiting(_ error: PhotoError, settling: Bool = false) {
        if settling { settleRequests() }
        let entries = settling ? ring.entries : []
        let waiting = state.withLock { s -> [(CheckedContinuation<ChosenFrame, any Error>, Task<Void, Never>?, ChosenFrame?)] in
            let waiting = s.requests.values.compactMap { r in
                r.continuation.map { ($0, r.timer, settling ? Self.decide(r, entries, timedOut: true, after: s.lastFileFrameArrival) : nil) }
            }
            s.requests = s.requests.filter { $0.value.continuation == nil }
            return waiting
        }
        for (continuation, timer, chosen) in waiting {
            timer?.cancel()
            if let chosen { continuation.resume(returning: chosen) } else { continuation.resume(throwing: error) }
        }
    }

    static let notConnected = PhotoError(
        .notConnected, "PhotoOutput: not connected to a running capture session with a video input; add the output and start the session first")

    // MARK: MediaReceiver

    func connect(_ sources: SourceDescription) {
        mutate { $0.sources = sources }
    }

    func disconnect(_ reason: DisconnectReason) {
        mutate { $0.sources = nil }
        ring.clear()
        let why = switch reason {
        case .sessionStopped: "the capture session stopped"
        case .removed: "the output was removed from the capture session"
        case .inputsChanged: "the capture session changed its inputs"
        }
        failWaiting(PhotoError(.notConnected, "PhotoOutput: \(why) before a video frame arrived"))
    }

    func receive(_ event: VideoSourceEvent) {
        switch event {
        case .frame(let frame):
            // The capture thread only hands the ring a reference; the copy is made on its thread.
            guard state.withLock({ $0.wantsFrames }) else { return }
            ring.offer(frame, arrival: MonotonicClock.now())
        case .interrupted(let reason):
            let error = PhotoError(.notConnected, "PhotoOutput: the video input was lost before a frame arrived: \(reason)")
            ring.afterQueuedFrames { [weak self] in self?.failWaiting(error) }
        case .ended:
            let error = PhotoError(.notConnected, "PhotoOutput: the video input ended before a frame arrived")
            ring.afterQueuedFrames { [weak self] in self?.failWaiting(error, settling: true) }
        case .dropped, .corrupted:
            break
        }
    }

    func receive(_ event: AudioSourceEvent) {}

    /// A Boolean value that indicates whether a file photo waits for a frame that the kept ones
    /// cannot give it and none is being copied, so a file source reads its next frame for it.
    /// The ring is asked first: once it is idle, only this source's thread can make it busy.
    var isConsumingMedia: Bool {
        guard !ring.isBusy else { return false }
        let entries = ring.entries
        return state.withLock { $0.needsFileFrame(entries) }
    }
}
