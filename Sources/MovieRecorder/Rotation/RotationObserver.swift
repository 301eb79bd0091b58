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
    }

    /// The state, in a class so callbacks can hold it without holding the observer.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
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
        // Cancel outside the lock: a coordinator's callbacks take this lock while holding theirs.
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
        let (camera, mounting, target, oldObservations, oldCoordinator) = shared.state.withLock { s in
            let old = (s.observations, s.coordinator)
            s.observations = []
            s.coordinator = nil  // from here no callback of the old coordinator passes the identity check
            change(&s)
            return (s.camera, s.mounting, s.previewTarget, old.0, old.1)
        }
        // Outside the lock: a coordinator's callbacks take this lock while holding theirs.
        for observation in oldObservations { observation.cancel() }
        oldCoordinator?.invalidate()
        guard let camera else { return }
        let coordinator = try RotationCoordinator(camera: camera, mounting: mounting, gravitySource: gravitySource,
                                                  previewDisplayRotation: target?.displayRotation ?? 0)
        let continuation = self.continuation
        let shared = self.shared
        shared.state.withLock { s in
            guard s.camera === camera else {
                coordinator.invalidate()  // another camera was set meanwhile
                return
            }
            s.coordinator = coordinator
            // Read both angles once, then observe.
            target?.setPreviewRotationAngle(coordinator.videoRotationAngleForHorizonLevelPreview)
            continuation.yield(coordinator.videoRotationAngleForHorizonLevelCapture)
            let weakTarget = WeakBox<AnyObject>()
            weakTarget.value = target
            s.observations = [
                coordinator.observePreviewAngle { angle in
                    shared.state.withLock { s in
                        guard s.coordinator === coordinator else { return }
                        (weakTarget.value as? any PreviewTarget)?.setPreviewRotationAngle(angle)
                    }
                },
                coordinator.observeCaptureAngle { angle in
                    shared.state.withLock { s in
                        guard s.coordinator === coordinator else { return }
                        continuation.yield(angle)
                    }
                },
            ]
        }
    }
}
