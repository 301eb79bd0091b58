import Foundation
import Synchronization
import Testing
@testable import MovieContainer
@testable import MovieCapture
@testable import MovieRecorder

/// Races the rotation objects against each other: gravity updates from one thread while another
/// switches cameras and preview targets. The code before the lock discipline deadlocked here
/// (the coordinator called the observer's callbacks under its own lock while the observer held
/// its lock registering them). A watchdog fails the test instead of letting it hang.
@Suite struct RotationStressTests {
    final class CountingTarget: PreviewTarget {
        let displayRotation: Int
        let received = Atomic<Int>(0)
        init(displayRotation: Int) { self.displayRotation = displayRotation }
        func setPreviewRotationAngle(_ angle: Double) { received.add(1, ordering: .relaxed) }
    }

    /// Runs `body` on a thread of its own and waits up to `seconds` for it.
    /// - Returns: `true` when it finished in time.
    func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test func gravityUpdatesWhileCamerasAndTargetsChangeNeverDeadlock() throws {
        let gravity = ManualGravitySource(.upright(rotatedClockwise: 0))
        let observer = RotationObserver(gravitySource: gravity)
        let cameras = try [TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30)),
                           TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30))]
        let targets = [CountingTarget(displayRotation: 0), CountingTarget(displayRotation: 90)]
        let back = CameraMounting(position: .back)  // turns with the device
        try observer.setCamera(cameras[0], mounting: back)
        let switches = 5_000
        let switching = Atomic<Bool>(true)
        let finished = finishes(within: 120) {
            let group = DispatchGroup()
            group.enter()
            Thread.detachNewThread {
                var n = 0
                while switching.load(ordering: .relaxed) {  // turn for as long as the switching goes on
                    gravity.setRotation(clockwiseDegrees: (n % 4) * 90)
                    n += 1
                }
                group.leave()
            }
            group.enter()
            Thread.detachNewThread {
                for n in 0..<switches {
                    try? observer.setCamera(cameras[n % 2], mounting: back)
                    try? observer.setPreviewTarget(targets[n % 2])
                }
                switching.store(false, ordering: .relaxed)
                group.leave()
            }
            group.wait()
        }
        #expect(finished, "gravity updates and camera/target switches deadlocked (watchdog after 120 s)")
        guard finished else { return }
        // Afterwards the observer still works: a turn reaches the current preview target.
        try observer.setPreviewTarget(targets[0])
        let before = targets[0].received.load(ordering: .relaxed)
        gravity.setRotation(clockwiseDegrees: 90)
        gravity.setRotation(clockwiseDegrees: 180)
        #expect(targets[0].received.load(ordering: .relaxed) > before)
        #expect(observer.coordinator?.videoRotationAngleForHorizonLevelCapture == 180)
    }
}
