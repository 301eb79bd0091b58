import MoviePlatform
import MovieCapture
import Synchronization

/// Feels a bump in the readings of an accelerometer and reports it once, with its size.
///
/// An impact is a change of acceleration of at least ``threshold`` (in g, the length of the
/// difference of two vectors) between the newest reading and any reading of the last
/// ``window``. Its size is the largest change from that earlier reading over the next
/// ``window``, and the handler hears of it then, one window after the change crossed the
/// threshold; after it the detector stays quiet for ``holdOff`` (from the crossing) so one
/// crash is one event.
///
/// Looking at a window rather than at two successive readings is what makes a polled sensor
/// trustworthy: sysfs gives each axis's newest value on its own read, so a reading taken while
/// the sensor updates is torn (new x, old y and z), and a bump read that way arrives as two
/// smaller changes, each under the threshold. Over a window the change from rest to the
/// bump is whole again. Hand it the ``IIOAccelerometer`` the rotation already reads (they share
/// it) and save an event clip from its handler:
///
/// ```swift
/// let detector = ImpactDetector(source: accelerometer, threshold: 2.5)
/// try detector.start { _ in try? movie.saveEventClip() }
/// ```
///
/// An accelerometer read through its buffer (``IIOAccelerometer/readingMethod``) delivers every
/// sample at the device's rate, each with its time. A polled one sees a bump only if it lasts a
/// polling interval: poll every 10–20 ms for impacts
/// (``IIOAccelerometer/init(path:pollingInterval:)``). At rest the change between readings is
/// the sensor's noise, a few hundredths of a g.
public final class ImpactDetector: Sendable {
    /// One impact: how large the change was, in g, and when it was read, on `MonotonicClock`.
    public struct Impact: Sendable, Hashable {
        /// The largest change of acceleration from the reading before the impact, in g.
        public var change: Double
        /// When the reading that crossed the threshold was taken, on `MonotonicClock`, in
        /// nanoseconds.
        public var time: UInt64
    }

    /// The source of readings.
    public let source: any GravitySource
    /// The smallest change within ``window`` that is an impact, in g (9.80665 m/s²).
    public let threshold: Double
    /// How long after an impact the next can be reported.
    public let holdOff: Duration
    /// How far back a reading is compared with, and how long an impact's size is followed
    /// before it is reported.
    public let window: Duration

    /// A reading and when it was taken.
    private struct Reading {
        var gravity: GravityVector
        var time: UInt64
    }

    /// An impact whose size is still being followed.
    private struct Pending {
        var time: UInt64
        var baseline: GravityVector
        var peak: Double
    }

    private struct State {
        var recent: [Reading] = []
        var pending: Pending?
        var quietUntil: UInt64 = 0
        var subscription: GravitySubscription?
    }
    private let state = LockedValue(State())
    /// The most readings a window keeps, whatever the device's rate: at 1.6 kHz, 640 ms.
    private static let maximumReadings = 1024

    /// Creates a detector for `source` with a window of 100 ms.
    /// - Parameters:
    ///   - source: the accelerometer, shared with anything else that reads it.
    ///   - threshold: in g; 2.5 by default, more than a pothole's jolt.
    ///   - holdOff: 2 seconds by default.
    public convenience init(source: any GravitySource, threshold: Double = 2.5, holdOff: Duration = .seconds(2)) {
        self.init(source: source, threshold: threshold, holdOff: holdOff, window: .milliseconds(100))
    }

    /// Creates a detector for `source`.
    /// - Parameters:
    ///   - source: the accelerometer, shared with anything else that reads it.
    ///   - threshold: in g, such as 2.5, more than a pothole's jolt.
    ///   - holdOff: how long after an impact the next can be reported, such as 2 seconds.
    ///   - window: how far back a reading is compared with, and how long an impact's size is
    ///     followed: 50–100 ms spans a sensor's update of its three axes and a bump's rise.
    public init(source: any GravitySource, threshold: Double, holdOff: Duration, window: Duration) {
        self.source = source
        self.threshold = threshold
        self.holdOff = holdOff
        self.window = window
    }

    /// Starts reading the source; `handler` is called on the source's thread with each impact,
    /// never under a lock of the detector.
    /// - Throws: ``GravitySourceError`` when the source cannot start; ``ImpactDetectorError``
    ///   for a threshold that is not positive, a window that is not positive, a negative
    ///   hold-off, or a detector already started.
    public func start(handler: @escaping @Sendable (Impact) -> Void) throws {
        guard threshold > 0, threshold.isFinite else {
            throw ImpactDetectorError("ImpactDetector: a threshold of \(threshold) g is not a positive number of g")
        }
        guard window > .zero, holdOff >= .zero else {
            throw ImpactDetectorError("ImpactDetector: the window (\(window)) must be positive and the hold-off (\(holdOff)) not negative")
        }
        guard state.withLock({ $0.subscription == nil }) else {
            throw ImpactDetectorError("ImpactDetector: already started; call stop() first")
        }
        let subscription = try GravitySubscription(source: source) { [weak self] reading, time in
            if let impact = self?.impact(at: reading, time: time) { handler(impact) }
        }
        state.withLock { $0.subscription = subscription }
    }

    /// Stops reading the source (the source itself stops with its last subscriber). An impact
    /// still being followed is not reported.
    public func stop() {
        let subscription = state.withLock { s in
            defer { s = State() }
            return s.subscription
        }
        subscription?.cancel()
    }

    /// The impact to report once `reading`, taken at `time`, is in: one whose window has
    /// passed.
    private func impact(at reading: GravityVector, time: UInt64) -> Impact? {
        let window = Self.nanoseconds(self.window), holdOff = Self.nanoseconds(self.holdOff)
        return state.withLock { s in
            var settled: Impact?
            if let pending = s.pending, time >= pending.time &+ window {
                settled = Impact(change: pending.peak, time: pending.time)
                s.pending = nil
            }
            let stale = s.recent.prefix { $0.time &+ window < time }.count
            s.recent.removeFirst(max(stale, s.recent.count + 1 - Self.maximumReadings))
            if var pending = s.pending {
                pending.peak = max(pending.peak, Self.change(from: pending.baseline, to: reading))
                s.pending = pending
            } else if settled == nil, time >= s.quietUntil,
                      let largest = s.recent.max(by: { Self.change(from: $0.gravity, to: reading) < Self.change(from: $1.gravity, to: reading) }) {
                let change = Self.change(from: largest.gravity, to: reading)
                if change >= threshold {
                    s.pending = Pending(time: time, baseline: largest.gravity, peak: change)
                    s.quietUntil = time &+ holdOff
                }
            }
            s.recent.append(Reading(gravity: reading, time: time))
            return settled
        }
    }

    /// The length of the change from `a` to `b`, in g.
    private static func change(from a: GravityVector, to b: GravityVector) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z
        return (dx * dx + dy * dy + dz * dz).squareRoot() / GravityVector.standardGravity
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
