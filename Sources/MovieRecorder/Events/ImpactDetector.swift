import MoviePlatform
import MovieCapture
import Synchronization

/// Feels a bump in the readings of an accelerometer: an impact is a change of acceleration
/// between two successive readings of at least ``threshold`` (in g, the length of the
/// difference of the two vectors), and after one the detector stays quiet for ``holdOff`` so
/// one crash is one event. Hand it the ``IIOAccelerometer`` the rotation already reads (they
/// share it) and save an event clip from its handler:
///
/// ```swift
/// let detector = ImpactDetector(source: accelerometer, threshold: 2.5)
/// try detector.start { _ in try? movie.saveEventClip() }
/// ```
///
/// A driver that is polled sees a bump only if it lasts a polling interval: poll every 10–20 ms
/// for impacts (``IIOAccelerometer/init(path:pollingInterval:)``); at rest the change between
/// readings is the sensor's noise, a few hundredths of a g.
public final class ImpactDetector: Sendable {
    /// One impact: how large the change was, in g, and when it was read, on `MonotonicClock`.
    public struct Impact: Sendable, Hashable {
        /// The change of acceleration between the two readings, in g.
        public var change: Double
        /// When the second reading was taken, on `MonotonicClock`, in nanoseconds.
        public var time: UInt64
    }

    /// The source of readings.
    public let source: any GravitySource
    /// The smallest change between two readings that is an impact, in g (9.80665 m/s²).
    public let threshold: Double
    /// How long after an impact the next can be reported.
    public let holdOff: Duration

    private struct State {
        var previous: GravityVector?
        var quietUntil: UInt64 = 0
        var subscription: GravitySubscription?
    }
    private let state = LockedValue(State())

    /// Creates a detector for `source`.
    /// - Parameters:
    ///   - source: the accelerometer, shared with anything else that reads it.
    ///   - threshold: in g; 2.5 by default, more than a pothole's jolt.
    ///   - holdOff: 2 seconds by default.
    public init(source: any GravitySource, threshold: Double = 2.5, holdOff: Duration = .seconds(2)) {
        self.source = source
        self.threshold = threshold
        self.holdOff = holdOff
    }

    /// Starts reading the source; `handler` is called on the source's thread with each impact,
    /// never under a lock of the detector.
    /// - Throws: ``GravitySourceError`` when the source cannot start; ``ImpactDetectorError``
    ///   for a threshold that is not positive or a detector already started.
    public func start(handler: @escaping @Sendable (Impact) -> Void) throws {
        guard threshold > 0, threshold.isFinite else {
            throw ImpactDetectorError("ImpactDetector: a threshold of \(threshold) g is not a positive number of g")
        }
        guard state.withLock({ $0.subscription == nil }) else {
            throw ImpactDetectorError("ImpactDetector: already started; call stop() first")
        }
        let subscription = try GravitySubscription(source: source) { [weak self] reading in
            if let impact = self?.impact(at: reading) { handler(impact) }
        }
        state.withLock { $0.subscription = subscription }
    }

    /// Stops reading the source (the source itself stops with its last subscriber).
    public func stop() {
        let subscription = state.withLock { s in
            defer { s.subscription = nil; s.previous = nil }
            return s.subscription
        }
        subscription?.cancel()
    }

    /// The impact `reading` makes after the previous one, if it is one and the hold-off is over.
    private func impact(at reading: GravityVector) -> Impact? {
        let now = MonotonicClock.now()
        return state.withLock { s in
            defer { s.previous = reading }
            guard let previous = s.previous, now >= s.quietUntil else { return nil }
            let dx = reading.x - previous.x, dy = reading.y - previous.y, dz = reading.z - previous.z
            let change = (dx * dx + dy * dy + dz * dz).squareRoot() / GravityVector.standardGravity
            guard change >= threshold else { return nil }
            let (seconds, attoseconds) = holdOff.components
            s.quietUntil = now &+ UInt64(max(0, seconds)) * 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
            return Impact(change: change, time: now)
        }
    }
}
