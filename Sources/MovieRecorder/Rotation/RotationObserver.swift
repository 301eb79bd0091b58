import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An object that owns a rotation coordinator for the current camera, applies its preview angle
/// to the preview target, and publishes its capture angle — AVCam's rotation observer.
///
/// Setting a camera or a preview target starts observing afresh: the previous coordinator is
/// invalidated first, so an angle for the previous camera can never arrive after the new one's.
/// Both angles are read once right away, so nothing stays sideways until the first physical
/// rotation. Capture angles go out through ``captureAngles``, which keeps only the newest.
public final class RotationObserver: Sendable {
    private struct State {
        var coordinator: RotationCoordinator?
        var camera: (any VideoSource)?
        var mounting: CameraMounting?
        weak var previewTarget: (any PreviewTarget)?
        var observations: [RotationObservation] = []
        var consumerEnded = false
        /// Counts restarts: only the latest may install its coordinator.
        var generation: UInt64 = 0
    }

    /// The state, in a class so callbacks can hold it without holding the observer.
    private final class Shared: Sendable {
        let state = LockedValue(State())
    }

    private let shared = Shared()
    /// Angles on their way to the preview target and the stream: queued under the lock, in
    /// order, and delivered after it is released.
    private let delivery = SerialDelivery()
    private let gravitySource: (any GravitySource)?
    private let continuation: AsyncStream<Double>.Continuation
    /// The capture angles, newest only: a consumer that is busy sees the latest angle next,
    /// never a backlog. Meant for one consumer (the ``CaptureService``).
    public let captureAngles: AsyncStream<Double>

    /// Creates an observer that reads the device's gravity from `gravitySource` (`nil`: upright).
    public init(gravitySource: (any GravitySource)?) {
        self.gravitySource = gravitySource
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(1))
        captureAngles = stream
        self.continuation = continuation
        let shared = self.shared
        continuation.onTermination = { _ in shared.state.withLock { $0.consumerEnded = true } }
    }

    deinit {
        // Cancel outside the lock: no other object's code runs while it is held.
        let (observations, coordinator) = shared.state.withLock { ($0.observations, $0.coordinator) }
        for observation in observations { observation.cancel() }
        coordinator?.invalidate()
        continuation.finish()
    }

    /// The current coordinator, for the camera last set.
    public var coordinator: RotationCoordinator? { shared.state.withLock { $0.coordinator } }

    /// A Boolean value that indicates whether the consumer of ``captureAngles`` has gone.
    var isConsumerEnded: Bool { shared.state.withLock { $0.consumerEnded } }

    /// Sets the camera to observe, replacing the coordinator.
    /// - Parameters:
    ///   - camera: The camera whose pictures the angles are for.
    ///   - mounting: Overrides the camera's reported mounting.
    /// - Throws: `GravitySourceError` when the gravity source cannot be subscribed to again.
    public func setCamera(_ camera: any VideoSource, mounting: CameraMounting? = nil) throws {
        try restart { s in
            s.camera = camera
            s.mounting = mounting
        }
    }

    /// Sets (or clears) the preview target; observing restarts so its display rotation counts.
    public func setPreviewTarget(_ target: (any PreviewTarget)?) throws {
        try restart { s in s.previewTarget = target }
    }

    private func restart(_ change: (inout State) -> Void) throws {
        // Cancel first: after this block no callback of the old coordinator can publish.
        let (camera, mounting, target, oldObservations, oldCoordinator, generation) = shared.state.withLock { s in
            let old = (s.observations, s.coordinator)
            s.observations = []
            s.coordinator = nil  // from here no callback of the old coordinator passes the identity check
            s.generation += 1
            change(&s)
            return (s.camera, s.mounting, s.previewTarget, old.0, old.1, s.generation)
        }
        // Outside the lock: no other object's code runs while it is held.
        for observation in oldObservations { observation.cancel() }
        oldCoordinator?.invalidate()
        guard let camera else { return }
        let coordinator = try RotationCoordinator(camera: camera, mounting: mounting, gravitySource: gravitySource,
                                                  previewDisplayRotation: target?.displayRotation ?? 0)
        let observations = observe(coordinator, target: target)
        let installed = shared.state.withLock { s in
            guard s.generation == generation else { return false }  // a later restart is in charge
            s.coordinator = coordinator
            s.observations = observations
            // Read both angles once, after the coordinator is in place: a turn from here on
            // passes the identity check and is queued behind these.
            enqueue(preview: coordinator.videoRotationAngleForHorizonLevelPreview, to: target)
            enqueue(capture: coordinator.videoRotationAngleForHorizonLevelCapture)
            return true
        }
        if !installed {
            for observation in observations { observation.cancel() }
            coordinator.invalidate()
        }
        delivery.drain()
    }

    /// Registers for `coordinator`'s angles, which pass on only while it is the current one.
    private func observe(_ coordinator: RotationCoordinator, target: (any PreviewTarget)?) -> [RotationObservation] {
        let weakTarget = WeakBox<AnyObject>(target)
        let shared = self.shared, delivery = self.delivery, continuation = self.continuation
        return [
            coordinator.observePreviewAngle { angle in
                shared.state.withLock { s in
                    guard s.coordinator === coordinator, let target = weakTarget.value as? any PreviewTarget else { return }
                    delivery.enqueue { target.setPreviewRotationAngle(angle) }
                }
                delivery.drain()
            },
            coordinator.observeCaptureAngle { angle in
                shared.state.withLock { s in
                    guard s.coordinator === coordinator else { return }
                    delivery.enqueue { continuation.yield(angle) }
                }
                delivery.drain()
            },
        ]
    }

    private func enqueue(preview angle: Double, to target: (any PreviewTarget)?) {
        guard let target else { return }
        delivery.enqueue { target.setPreviewRotationAngle(angle) }
    }

    private func enqueue(capture angle: Double) {
        let continuation = self.continuation
        delivery.enqueue { continuation.yield(angle) }
    }
}
