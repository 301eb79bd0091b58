import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An object that connects capture inputs — a camera, a microphone, or their synthetic and file
/// stand-ins — to outputs, like `AVCaptureSession`.
///
/// Changes happen in transactions (``configure(_:)``) that apply whole or not at all: a
/// transaction that throws, or whose new sources fail to start, leaves the previous
/// configuration running. Starting and stopping never block the caller's thread: devices open
/// and capture on dedicated threads.
public actor CaptureSession {
    /// What happens to a session.
    public enum Event: Sendable {
        /// The session started: its sources are capturing.
        case started
        /// The session stopped: its sources no longer capture.
        case stopped
        /// A source stopped delivering: a device was lost. Recordings were finalized.
        case interrupted(InterruptionReason)
        /// The session runs again after an interruption.
        case interruptionEnded
        /// Something failed while running that is not an interruption.
        case runtimeError(CaptureError)
    }

    /// The inputs and outputs of a session, changed inside ``CaptureSession/configure(_:)``.
    public struct Configuration: Sendable {
        /// The video source, or `nil` for none.
        public private(set) var videoInput: (any VideoSource)?
        /// The audio source, or `nil` for none.
        public private(set) var audioInput: (any AudioSource)?
        /// The outputs media goes to, in the order they were added.
        public private(set) var outputs: [any OutputService] = []

        /// A Boolean value that indicates whether a video input can be added: a session has one.
        public func canAddInput(_ source: any VideoSource) -> Bool { videoInput == nil }
        /// Returns a Boolean value that indicates whether an audio input can be added: a session
        /// has one.
        public func canAddInput(_ source: any AudioSource) -> Bool { audioInput == nil }

        /// Sets `source` as the video input.
        /// - Throws: ``CaptureError`` with ``CaptureError/Code/cannotAdd`` when there is one
        ///   already.
        public mutating func addInput(_ source: any VideoSource) throws {
            guard canAddInput(source) else {
                throw CaptureError(.cannotAdd, "CaptureSession: cannot add video input '\(source.name)': the session already has '\(videoInput!.name)'; remove it first")
            }
            videoInput = source
        }

        /// Sets `source` as the audio input.
        /// - Throws: ``CaptureError`` with ``CaptureError/Code/cannotAdd`` when there is one
        ///   already.
        public mutating func addInput(_ source: any AudioSource) throws {
            guard canAddInput(source) else {
                throw CaptureError(.cannotAdd, "CaptureSession: cannot add audio input '\(source.name)': the session already has '\(audioInput!.name)'; remove it first")
            }
            audioInput = source
        }

        /// Removes the video input, if any.
        public mutating func removeVideoInput() { videoInput = nil }
        /// Removes the audio input, if any.
        public mutating func removeAudioInput() { audioInput = nil }

        /// A Boolean value that indicates whether an output can be added: one of this library's
        /// outputs, not already in the session.
        public func canAddOutput(_ output: any OutputService) -> Bool {
            guard let receiver = output as? any MediaReceiver else { return false }
            return !outputs.contains { $0 === output } && receiver.sessionClaim.isAvailable(to: sessionID)
        }

        /// The session this configuration belongs to, set while it is being changed.
        var sessionID: ObjectIdentifier?

        /// Adds `output`.
        /// - Throws: ``CaptureError`` with ``CaptureError/Code/cannotAdd`` when it is already
        ///   here or is not an output of this library.
        public mutating func addOutput(_ output: any OutputService) throws {
            guard canAddOutput(output) else {
                throw CaptureError(.cannotAdd, "CaptureSession: cannot add \(type(of: output)): it is already in this or another session, or is not a capture output of this library; remove it from the other session first")
            }
            outputs.append(output)
        }

        /// Removes `output`, if it is here.
        public mutating func removeOutput(_ output: any OutputService) {
            outputs.removeAll { $0 === output }
        }
    }

    /// The current inputs and outputs; change them with ``configure(_:)``.
    public private(set) var configuration = Configuration()
    /// A Boolean value that indicates whether the session runs: between ``startRunning()`` and
    /// ``stopRunning()``.
    public private(set) var isRunning = false
    private var wasInterrupted = false
    /// Transactions, starts and stops run one at a time: each awaits device threads, and the
    /// actor would otherwise let another begin in between (reentrancy).
    private var busy = false
    private var queue: [CheckedContinuation<Void, Never>] = []

    private func serialized<T>(_ body: () async throws -> T) async rethrows -> T {
        while busy { await withCheckedContinuation { queue.append($0) } }
        busy = true
        defer {
            busy = false
            if !queue.isEmpty { queue.removeFirst().resume() }
        }
        return try await body()
    }
    private let router: MediaRouter
    /// One gate per running source; halting it releases a file source waiting for a consumer.
    private var gates: [ObjectIdentifier: SourceGate] = [:]
    private let eventContinuation: AsyncStream<Event>.Continuation
    /// The session's events, newest kept when nobody reads (up to 32).
    public nonisolated let events: AsyncStream<Event>

    /// The audio input's level per channel, as `AVCaptureAudioChannel` gives it: the average
    /// power and the one-second peak hold of the newest buffer, in dBFS. Measured from every
    /// buffer a running input delivers, whether or not an output records; empty while no audio
    /// input runs. (A file source delivers, and so is measured, only while an output records.)
    public nonisolated var audioChannelLevels: [AudioChannelLevel] { router.audioLevels.levels }

    /// The audio levels as they change: one reading per buffer the input delivers (about every
    /// 20 ms from a microphone), the stream keeping only the newest when the reader is slower.
    /// The stream ends when its reader stops iterating.
    public nonisolated func audioLevelUpdates() -> AsyncStream<[AudioChannelLevel]> { router.audioLevels.updates() }

    /// The pressure on the machine now, as `AVCaptureDevice.systemPressureState` gives it:
    /// heat, power, CPU contention and the recordings' lag, read about once a second while the
    /// session runs; ``SystemPressureState/nominal`` before it starts.
    public nonisolated var systemPressureState: SystemPressureState { pressure.current }

    /// The pressure as it changes, starting with the state now; the stream keeps the newest 8
    /// when the reader is slower and ends when its reader stops iterating.
    public nonisolated func systemPressureUpdates() -> AsyncStream<SystemPressureState> {
        pressure.states.listen(startingWith: pressure.current)
    }

    /// The steps the session's outputs take under pressure and undo after it
    /// (``MovieFileOutput/degradesUnderPressure``), as they happen; the stream keeps the newest
    /// 64 and ends when its reader stops iterating.
    public nonisolated func degradationSteps() -> AsyncStream<DegradationStep> { pressure.steps.listen() }

    let pressure: PressureCoordinator

    /// Creates a session with no inputs or outputs.
    public init() {
        self.init(pressure: PressureCoordinator())
    }

    /// Creates a session that reads its pressure through `pressure` (a fixture tree in tests).
    init(pressure: PressureCoordinator) {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(32))
        self.events = events
        eventContinuation = continuation
        router = MediaRouter { reason in continuation.yield(.interrupted(reason)) }
        self.pressure = pressure
    }

    deinit {
        eventContinuation.finish()
        pressure.stop()  // a session let go while running stops reading too
    }

    /// Changes inputs and outputs atomically.
    ///
    /// While running, new sources start before the old ones stop; if one fails, everything
    /// started for the transaction stops again and the previous configuration keeps running.
    /// Recordings in progress end when their video input changes.
    ///
    /// `change` is `@Sendable` so that `configure` can be called from any isolation, such as
    /// `@MainActor` code; the inputs and outputs it adds are `Sendable` already.
    /// - Throws: whatever `change` throws, or ``CaptureError`` when a new source fails.
    public func configure(_ change: @Sendable (inout Configuration) throws -> Void) async throws {
        try await serialized { try await applyConfiguration(change) }
    }

    /// Returns a Boolean value that indicates whether `source` can be added as the video input:
    /// the session has none yet.
    public func canAddInput(_ source: any VideoSource) -> Bool { configuration.canAddInput(source) }

    /// Returns a Boolean value that indicates whether `source` can be added as the audio input:
    /// the session has none yet.
    public func canAddInput(_ source: any AudioSource) -> Bool { configuration.canAddInput(source) }

    /// Returns a Boolean value that indicates whether `output` can be added: one of this
    /// library's outputs, in no session yet.
    public func canAddOutput(_ output: any OutputService) -> Bool {
        var current = configuration
        current.sessionID = ObjectIdentifier(self)
        return current.canAddOutput(output)
    }

    private func applyConfiguration(_ change: (inout Configuration) throws -> Void) async throws {
        var proposed = configuration
        proposed.sessionID = ObjectIdentifier(self)
        try change(&proposed)
        try claimOutputs(of: proposed)
        guard isRunning else {
            configuration = proposed
            return
        }
        let old = configuration
        let videoChanged = proposed.videoInput !== old.videoInput
        let audioChanged = proposed.audioInput !== old.audioInput
        var started: [@Sendable () -> Void] = []
        do {
            if videoChanged, let video = proposed.videoInput {
                try await start(video)
                started.append { video.stop() }
            }
            if audioChanged, let audio = proposed.audioInput {
                try await start(audio)
                started.append { audio.stop() }
            }
        } catch {
            let undo = started
            if videoChanged { halt(proposed.videoInput) }
            if audioChanged { halt(proposed.audioInput) }
            await runBlocking { for stop in undo { stop() } }
            restoreClaims(after: proposed, to: old)
            throw error
        }
        let removed = old.outputs.filter { o in !proposed.outputs.contains { $0 === o } }.compactMap { $0 as? any MediaReceiver }
        let kept = proposed.outputs.compactMap { $0 as? any MediaReceiver }
        // Outputs first, as in stop(): a recording stops taking media, and releases a file
        // source waiting on it, before the old source threads are joined.
        for output in removed { output.disconnect(.removed) }
        if videoChanged || audioChanged {
            for output in kept { output.disconnect(.inputsChanged) }
        }
        let oldVideo = videoChanged ? old.videoInput : nil
        let oldAudio = audioChanged ? old.audioInput : nil
        if isRunning, audioChanged, proposed.audioInput == nil { router.audioLevels.reset(format: nil) }
        halt(oldVideo)
        halt(oldAudio)
        await runBlocking {
            oldVideo?.stop()
            oldAudio?.stop()
        }
        configuration = proposed
        router.setReceivers(kept)
        let description = sourceDescription()
        for output in kept { output.connect(description) }
        for output in removed { await output.finishDisconnecting() }
    }

    /// Undoes ``claimOutputs(of:)`` for a change that failed: the outputs it added are given up,
    /// those it dropped are this session's again.
    private func restoreClaims(after proposed: Configuration, to old: Configuration) {
        for output in proposed.outputs where !old.outputs.contains(where: { $0 === output }) {
            (output as? any MediaReceiver)?.sessionClaim.release(from: self)
        }
        for output in old.outputs where !proposed.outputs.contains(where: { $0 === output }) {
            _ = (output as? any MediaReceiver)?.sessionClaim.claim(for: self)
        }
    }

    /// Claims the outputs `proposed` adds for this session and releases those it drops.
    /// - Throws: ``CaptureError`` with ``CaptureError/Code/cannotAdd`` when another session
    ///   claimed an output first; nothing is claimed then.
    private func claimOutputs(of proposed: Configuration) throws {
        let receivers = proposed.outputs.compactMap { $0 as? any MediaReceiver }
        var claimed: [any MediaReceiver] = []
        for receiver in receivers where !configuration.outputs.contains(where: { $0 === receiver }) {
            guard receiver.sessionClaim.claim(for: self) else {
                for earlier in claimed { earlier.sessionClaim.release(from: self) }
                throw CaptureError(.cannotAdd, "CaptureSession: cannot add \(type(of: receiver)): another session has it; remove it from that session first")
            }
            claimed.append(receiver)
        }
        for output in configuration.outputs where !proposed.outputs.contains(where: { $0 === output }) {
            (output as? any MediaReceiver)?.sessionClaim.release(from: self)
        }
    }

    /// Adds an input in a transaction of its own.
    public func addInput(_ source: any VideoSource) async throws { try await configure { try $0.addInput(source) } }
    /// Adds an audio input in a transaction of its own.
    public func addInput(_ source: any AudioSource) async throws { try await configure { try $0.addInput(source) } }
    /// Adds an output in a transaction of its own.
    public func addOutput(_ output: any OutputService) async throws { try await configure { try $0.addOutput(output) } }
    /// Removes an output in a transaction of its own.
    public func removeOutput(_ output: any OutputService) async throws { try await configure { $0.removeOutput(output) } }

    /// Starts the sources; outputs receive media from now on.
    /// - Throws: ``CaptureError`` when there are no inputs or a source cannot start; nothing
    ///   stays started then.
    public func startRunning() async throws {
        try await serialized { try await start() }
    }

    private func start() async throws {
        guard !isRunning else { return }
        guard configuration.videoInput != nil || configuration.audioInput != nil else {
            throw CaptureError(.noInputs, "CaptureSession: add a video or audio input before starting")
        }
        router.setReceivers(configuration.outputs.compactMap { $0 as? any MediaReceiver })
        let description = sourceDescription()
        for output in configuration.outputs { (output as? any MediaReceiver)?.connect(description) }
        if let video = configuration.videoInput {
            do {
                try await start(video)
            } catch {
                for output in configuration.outputs { (output as? any MediaReceiver)?.disconnect(.sessionStopped) }
                throw error
            }
        }
        if let audio = configuration.audioInput {
            do {
                try await start(audio)
            } catch {
                let video = configuration.videoInput
                halt(video)
                await runBlocking { video?.stop() }
                for output in configuration.outputs { (output as? any MediaReceiver)?.disconnect(.sessionStopped) }
                throw error
            }
        }
        isRunning = true
        pressure.start()
        eventContinuation.yield(.started)
        if wasInterrupted {
            wasInterrupted = false
            eventContinuation.yield(.interruptionEnded)
        }
    }

    /// Stops the sources; recordings in progress are finalized.
    public func stopRunning() async {
        await serialized { await stop() }
    }

    private func stop() async {
        guard isRunning else { return }
        isRunning = false
        let (video, audio) = (configuration.videoInput, configuration.audioInput)
        // Outputs first: a recording stops taking media (and releases a file source waiting on
        // it) before the source threads are joined.
        let receivers = configuration.outputs.compactMap { $0 as? any MediaReceiver }
        for output in receivers { output.disconnect(.sessionStopped) }
        halt(video)
        halt(audio)
        await runBlocking {
            video?.stop()
            audio?.stop()
        }
        router.setReceivers([])
        router.audioLevels.reset(format: nil)
        if router.takeInterrupted() { wasInterrupted = true }
        for output in receivers { await output.finishDisconnecting() }
        let pressure = self.pressure
        await runBlocking { pressure.stop() }
        eventContinuation.yield(.stopped)
    }

    /// Releases a source's thread from waiting for a consumer, so it can stop.
    private func halt(_ source: AnyObject?) {
        guard let source else { return }
        gates.removeValue(forKey: ObjectIdentifier(source))?.halt()
        router.consumersChanged.wake()  // a file source waiting for a consumer sees the halt
    }

    private func sourceDescription() -> SourceDescription {
        let consumersChanged = router.consumersChanged
        return SourceDescription(
            video: configuration.videoInput.map { ($0.format, $0.isLive, $0.name) },
            cameraLayout: (configuration.videoInput as? any NativePictureLending).flatMap { source in
                source.nativePictureLayout.map { ($0, source.nativePictures) }
            },
            audio: configuration.audioInput.map { ($0.format, $0.isLive, $0.name, $0.hasOwnClock) },
            wakeWaitingSources: { consumersChanged.wake() }, pressure: pressure)
    }

    private func start(_ source: any VideoSource) async throws {
        let router = self.router
        try await start(source, kind: "video", live: source.isLive) { gate in try source.start { router.route($0, gate: gate) } }
    }

    private func start(_ source: any AudioSource) async throws {
        let router = self.router
        router.audioLevels.reset(format: source.format)
        try await start(source, kind: "audio", live: source.isLive) { gate in try source.start { router.route($0, gate: gate) } }
    }

    /// Starts a source on a dedicated thread behind a new gate; a failure becomes a
    /// ``CaptureError`` that keeps the source's own error.
    private func start(_ source: AnyObject & Sendable, kind: String, live: Bool,
                       _ begin: @escaping @Sendable (SourceGate) throws -> Void) async throws {
        let gate = SourceGate(live: live)
        gates[ObjectIdentifier(source)] = gate
        do {
            try await runOnDedicatedThread(name: "movrec-start") { try begin(gate) }
        } catch {
            gates.removeValue(forKey: ObjectIdentifier(source))
            let name = (source as? any VideoSource)?.name ?? (source as? any AudioSource)?.name ?? "?"
            throw CaptureError(.sourceFailed, "CaptureSession: starting \(kind) input '\(name)': \(error)", underlying: error)
        }
    }

    private func runBlocking(_ body: @escaping @Sendable () -> Void) async {
        _ = try? await runOnDedicatedThread(name: "movrec-stop", body)
    }
}
