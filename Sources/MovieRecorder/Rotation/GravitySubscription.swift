import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// Shares one gravity source among its subscribers: the source starts with the first
/// subscription and stops with the last, so several coordinators (one per camera, one after
/// another) can listen to the same accelerometer.
final class GravitySubscription: Sendable {
    private let source: any GravitySource
    private let token: UInt64
    private let cancelled = Atomic<Bool>(false)

    private struct Hub {
        var handlers: [UInt64: @Sendable (GravityVector, UInt64) -> Void] = [:]
        var nextToken: UInt64 = 0
    }

    /// Every shared source's subscribers, by source.
    private static let hubs = LockedValue<[ObjectIdentifier: Hub]>([:])

    /// Subscribes `handler` to `source`, starting it if nobody listened yet.
    convenience init(source: any GravitySource, handler: @escaping @Sendable (GravityVector) -> Void) throws {
        try self.init(source: source, timedHandler: { gravity, _ in handler(gravity) })
    }

    /// Subscribes `timedHandler` to `source`, starting it if nobody listened yet; each reading
    /// comes with the time it was taken (the time it arrived, for a source that does not say).
    init(source: any GravitySource, timedHandler handler: @escaping @Sendable (GravityVector, UInt64) -> Void) throws {
        self.source = source
        let key = ObjectIdentifier(source)
        let (token, first) = Self.hubs.withLock { hubs in
            var hub = hubs[key] ?? Hub()
            hub.nextToken += 1
            hub.handlers[hub.nextToken] = handler
            hubs[key] = hub
            return (hub.nextToken, hub.handlers.count == 1)
        }
        self.token = token
        guard first else { return }
        let deliver: @Sendable (GravityVector, UInt64) -> Void = { gravity, time in
            let handlers = Self.hubs.withLock { $0[key]?.handlers.sorted { $0.key < $1.key }.map(\.value) ?? [] }
            for handler in handlers { handler(gravity, time) }
        }
        do {
            if let timed = source as? any TimedGravitySource {
                try timed.start(timedHandler: deliver)
            } else {
                try source.start { gravity in deliver(gravity, MonotonicClock.now()) }
            }
        } catch {
            Self.hubs.withLock { _ = $0.removeValue(forKey: key) }
            throw error
        }
    }

    /// Ends the subscription; stops the source when it was the last.
    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let key = ObjectIdentifier(source)
        let last = Self.hubs.withLock { hubs -> Bool in
            hubs[key]?.handlers.removeValue(forKey: token)
            if hubs[key]?.handlers.isEmpty ?? true {
                hubs.removeValue(forKey: key)
                return true
            }
            return false
        }
        if last { source.stop() }
    }
}
