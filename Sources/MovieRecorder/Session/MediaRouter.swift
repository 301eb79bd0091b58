import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// Hands each source event to every connected output, on the source's capture thread.
final class MediaRouter: Sendable {
    private let receivers = LockedValue<[any MediaReceiver]>([])
    private let interrupted = LockedValue(false)
    private let onInterruption: @Sendable (InterruptionReason) -> Void
    /// The audio input's levels, measured from every buffer whether or not an output records.
    let audioLevels = AudioLevelPublisher()

    init(onInterruption: @escaping @Sendable (InterruptionReason) -> Void) {
        self.onInterruption = onInterruption
    }

    /// Woken when an output starts consuming media, the receivers change or a gate is halted.
    let consumersChanged = WakeSignal()

    func setReceivers(_ list: [any MediaReceiver]) {
        receivers.withLock { $0 = list }
        consumersChanged.wake()
    }

    /// Holds a file source's thread until some output consumes media or its gate is halted:
    /// files wait, cameras never do. The wait is signalled (``consumersChanged``), not polled.
    private func waitForConsumer(_ gate: SourceGate) {
        guard !gate.live else { return }
        while true {
            let seen = consumersChanged.generation
            if gate.isHalted || receivers.withLock({ $0.contains { $0.isConsumingMedia } }) { return }
            consumersChanged.wait(after: seen)
        }
    }

    func takeInterrupted() -> Bool {
        interrupted.withLock { flag in
            let was = flag
            flag = false
            return was
        }
    }

    func route(_ event: VideoSourceEvent, gate: SourceGate) {
        waitForConsumer(gate)
        if case .interrupted(let reason) = event { noteInterruption(reason) }
        for receiver in receivers.withLock({ $0 }) { receiver.receive(event) }
    }

    func route(_ event: AudioSourceEvent, gate: SourceGate) {
        if case .buffer(let buffer) = event { audioLevels.measure(buffer) }
        waitForConsumer(gate)
        if case .interrupted(let reason) = event { noteInterruption(reason) }
        for receiver in receivers.withLock({ $0 }) { receiver.receive(event) }
    }

    private func noteInterruption(_ reason: InterruptionReason) {
        interrupted.withLock { $0 = true }
        onInterruption(reason)
    }
}
