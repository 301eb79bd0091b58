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
    }

    private let state = LockedValue(State())
    private let listeners = Broadcaster<[AudioChannelLevel]>(buffered: 1)

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
        let levels: [AudioChannelLevel]? = state.withLock { s in
            guard var meter = s.meter else { return nil }
            s.levels = meter.measure(buffer)
            s.meter = meter
            return s.levels
        }
        if let levels { listeners.send(levels) }
    }

    /// A stream of readings that keeps only the newest; it ends when the caller stops iterating.
    func updates() -> AsyncStream<[AudioChannelLevel]> { listeners.listen() }
}
