import Foundation
import Testing
@testable import MoviePlatform
@testable import MovieRecorder

/// The impact detector's window, fed readings with exact times by a stand-in for the sensor:
/// a bump read torn (some axes new, some old) is found whole, with its size; a nudge never is.
@Suite struct ImpactDetectorTests {
    /// The bump fixture's chip: 128 counts per g.
    static let scale = 0.076614453
    static let rest = (x: 2.0, y: 128.0, z: -4.0)
    static let bump = (x: 180.0, y: 420.0, z: 240.0)
    static let rebound = (x: -60.0, y: 20.0, z: 90.0)
    static let nudge = (x: 80.0, y: 250.0, z: 60.0)
    /// The bump's size from rest, in g: 3.28.
    static let bumpSize = distance(rest, bump)

    static func distance(_ a: (x: Double, y: Double, z: Double), _ b: (x: Double, y: Double, z: Double)) -> Double {
        let d = [(b.x - a.x), (b.y - a.y), (b.z - a.z)].map { $0 * scale }
        return (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).squareRoot() / GravityVector.standardGravity
    }

    /// A sensor whose axes change at instants of their own, read every 10 ms as sysfs would be:
    /// each poll takes each axis's value at that moment, so a poll between two axes' updates is
    /// torn. `lines` are (counts, how long they are held in ms); each line's y and z change
    /// `stagger` ms after the one before (x first).
    struct StaggeredSensor {
        var changes: [(time: Int, axis: Int, value: Double)] = []
        var end = 0

        init(lines: [((x: Double, y: Double, z: Double), Int)], stagger: [(Int, Int)]) {
            var t = 0
            for (index, (line, hold)) in lines.enumerated() {
                let (dy, dz) = stagger[index]
                changes += [(t, 0, line.x), (t + dy, 1, line.y), (t + dy + dz, 2, line.z)]
                t += dy + dz + hold
            }
            end = t
        }

        /// The readings of a poll every `interval` ms from `phase`, with their times in ms.
        func polls(every interval: Int, phase: Int) -> [(time: Int, value: (x: Double, y: Double, z: Double))] {
            stride(from: phase, to: end, by: interval).map { time in
                var axes = [0.0, 0.0, 0.0]
                for change in changes where change.time <= time { axes[change.axis] = change.value }
                return (time, (axes[0], axes[1], axes[2]))
            }
        }
    }

    /// 50 bumps read torn in 50 ways (the axes 0–15 ms apart, a poll's phase anywhere in its
    /// 10 ms): each is one impact whose size is within 10 % of 3.28 g, the rebound hidden by the
    /// hold-off; 50 nudges between them are none. In many of these replays the first change
    /// between successive readings to reach the threshold is a torn part of the rise or the
    /// rebound: the rule before the window would have missed or misjudged them.
    @Test func tornBumpsAreFoundWholeAndNudgesNever() throws {
        var random = PowerCutTests.SplitMix(state: 43)
        let source = TimedTestSource()
        let detector = ImpactDetector(source: source, threshold: 2.5, holdOff: .milliseconds(600), window: .milliseconds(100))
        let impacts = LockedValue<[ImpactDetector.Impact]>([])
        try detector.start { impact in impacts.withLock { $0.append(impact) } }
        defer { detector.stop() }
        var base = 1_000_000_000 as UInt64, wrongByPairs = 0
        for replay in 0..<50 {
            let stagger = (0..<7).map { _ in (Int.random(in: 0...15, using: &random), Int.random(in: 0...15, using: &random)) }
            let lines = [(Self.rest, 200), (Self.bump, 60), (Self.rebound, 40), (Self.rest, 700),
                         (Self.nudge, 60), (Self.rest, 700), (Self.rest, 10)]
            let polls = StaggeredSensor(lines: lines, stagger: stagger).polls(every: 10, phase: Int.random(in: 0..<10, using: &random))
            // The rule before the window: the first change between successive readings that
            // reaches the threshold, which a torn rise cuts short or the rebound overstates.
            let successive = zip(polls, polls.dropFirst()).map { Self.distance($0.value, $1.value) }.first { $0 >= 2.5 }
            if abs((successive ?? 0) - Self.bumpSize) > 0.1 * Self.bumpSize { wrongByPairs += 1 }
            for poll in polls {
                let v = poll.value
                source.deliver(GravityVector(x: v.x * Self.scale, y: v.y * Self.scale, z: v.z * Self.scale),
                               at: base + UInt64(poll.time) * 1_000_000)
            }
            base += 3_000_000_000
            let found = impacts.withLock { $0 }
            #expect(found.count == replay + 1, "replay \(replay) with stagger \(stagger): \(found.suffix(2))")
            if let last = found.last {
                #expect(abs(last.change - Self.bumpSize) <= 0.1 * Self.bumpSize, "replay \(replay): \(last.change) g, not \(Self.bumpSize)")
            }
        }
        #expect(impacts.withLock { $0.count } == 50)
        #expect(wrongByPairs >= 10, "the replays tear the bump often enough that successive readings miss it or misjudge it: \(wrongByPairs) of 50")
    }

    /// An impact is heard one window after its reading crossed the threshold, and its time is
    /// that reading's; a reading before the window has passed reports nothing yet.
    @Test func anImpactIsReportedAWindowAfterItsCrossing() throws {
        let source = TimedTestSource()
        let detector = ImpactDetector(source: source, threshold: 2.5, holdOff: .seconds(2), window: .milliseconds(50))
        let impacts = LockedValue<[ImpactDetector.Impact]>([])
        try detector.start { impact in impacts.withLock { $0.append(impact) } }
        defer { detector.stop() }
        let rest = GravityVector(x: 0, y: 9.8, z: 0), jolt = GravityVector(x: 30, y: 9.8, z: 0)
        source.deliver(rest, at: 1_000_000_000)
        source.deliver(jolt, at: 1_010_000_000)
        source.deliver(GravityVector(x: 40, y: 9.8, z: 0), at: 1_020_000_000)
        source.deliver(rest, at: 1_059_000_000)
        #expect(impacts.withLock { $0.isEmpty })
        source.deliver(rest, at: 1_060_000_000)
        let found = impacts.withLock { $0 }
        #expect(found == [ImpactDetector.Impact(change: 40 / GravityVector.standardGravity, time: 1_010_000_000)])
    }

    /// Settings it cannot work with are typed errors naming them.
    @Test func aWindowOrThresholdThatIsNotPositiveIsRefused() {
        let source = TimedTestSource()
        #expect(throws: ImpactDetectorError.self) {
            try ImpactDetector(source: source, threshold: 2.5, holdOff: .seconds(1), window: .zero).start { _ in }
        }
        #expect(throws: ImpactDetectorError.self) {
            try ImpactDetector(source: source, threshold: -1).start { _ in }
        }
    }
}

/// A stand-in for an accelerometer inside a unit test: the test hands it readings with times.
final class TimedTestSource: TimedGravitySource, @unchecked Sendable {
    // @unchecked: `handler` is guarded by `lock`.
    private let lock = NSLock()
    private var handler: (@Sendable (GravityVector, UInt64) -> Void)?

    var currentGravity: GravityVector? { nil }

    func start(handler: @escaping @Sendable (GravityVector) -> Void) throws {
        try start(timedHandler: { gravity, _ in handler(gravity) })
    }

    func start(timedHandler: @escaping @Sendable (GravityVector, UInt64) -> Void) throws {
        lock.withLock { handler = timedHandler }
    }

    func stop() { lock.withLock { handler = nil } }

    /// Hands `gravity`, taken at `time`, to the subscriber, on the caller's thread.
    func deliver(_ gravity: GravityVector, at time: UInt64) {
        let handler = lock.withLock { self.handler }
        handler?(gravity, time)
    }
}
