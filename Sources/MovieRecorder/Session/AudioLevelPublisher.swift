import MovieContainer
import MoviePlatform
import MovieCapture

/// The session's audio levels: measured on the audio capture thread from every buffer the
/// input delivers, kept as the newest reading, and handed to each listener's stream (which keeps
/// only the newest) after the lock is released.
final class AudioLevelPublisher: Sendable {
    private struct State {
        var meter: AudioLevelMeter?
        var levels: [AudioChannelLevel] = []
        var listeners: [Int: AsyncStream<[AudioChannelLevel]>.Continuation] = [:]
        var nextListener = 0
    }

    private let state = LockedValue(State())

    /// The newest reading, one level per channel; empty while no audio input runs.
    var levels: [AudioChannelLevel] { state.withLock { $0.levels } }

    /// Starts metering buffers of `format` (a new input), or stops (`nil`), clearing the reading.
    func reset(format: PCMFormat?) {
        state.withLock { s in
            s.meter = format.flatMap { try? AudioLevelMeter(format: $0) }
            s.levels = []
        }
    }

    /// Measures one buffer and tells the listeners.
    func measure(_ buffer: AudioBuffer) {
        let (levels, listeners) = state.withLock { s -> ([AudioChannelLevel], [AsyncStream<[AudioChannelLevel]>.Continuation]) in
            guard var meter = s.meter else { return ([], []) }
            s.levels = meter.measure(buffer)
            s.meter = meter
            return (s.levels, Array(s.listeners.values))
        }
        for listener in listeners { listener.yield(levels) }
    }

    /// A stream of readings that keeps only the newest; it ends when the caller stops iterating.
    func updates() -> AsyncStream<[AudioChannelLevel]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [AudioChannelLevel].self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            defer { s.nextListener += 1 }
            s.listeners[s.nextListener] = continuation
            return s.nextListener
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
        return stream
    }
}
