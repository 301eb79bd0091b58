import MoviePlatform

/// Hands each value to every listener's stream after its lock is released; a listener's
/// stream holds at most `buffered` values (the newest), so a slow one costs nothing.
final class Broadcaster<Value: Sendable>: Sendable {
    private struct State {
        var listeners: [Int: AsyncStream<Value>.Continuation] = [:]
        var next = 0
    }

    private let state = LockedValue(State())
    private let buffered: Int

    init(buffered: Int) { self.buffered = buffered }

    /// Sends `value` to every listener.
    func send(_ value: Value) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener.yield(value) }
    }

    /// A new listener's stream, starting with `first` when given; it ends when the caller
    /// stops iterating.
    func listen(startingWith first: Value? = nil) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(buffered))
        if let first { continuation.yield(first) }
        let id = state.withLock { s in
            defer { s.next += 1 }
            s.listeners[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
        return stream
    }
}
