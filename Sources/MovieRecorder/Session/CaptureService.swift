import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// An actor that keeps every capture output turned the way the rotation observer says — AVCam's
/// capture service.
///
/// One task consumes the observer's capture angles while holding the service only weakly; it
/// stores the latest angle and applies it to every output. Adding an output applies the stored
/// angle, so switching between photo and movie capture while the session runs keeps every
/// output in sync. The task is cancelled when the service is released.
public actor CaptureService {
    /// The session the outputs belong to.
    public nonisolated let session: CaptureSession
    /// The outputs added through this service, in the order they were added.
    public private(set) var outputs: [any OutputService] = []
    /// The latest capture angle, applied to every output.
    public private(set) var captureRotationAngle: Double = 0
    private var rotationTask: Task<Void, Never>?

    /// Creates a service for the outputs of `session`.
    /// - Parameter session: The session to add outputs to; a new one by default.
    public init(session: CaptureSession = CaptureSession()) {
        self.session = session
    }

    deinit { rotationTask?.cancel() }

    /// Starts applying the observer's capture angles; replaces an earlier observer.
    public func observeRotation(of observer: RotationObserver) {
        rotationTask?.cancel()
        let angles = observer.captureAngles
        rotationTask = Task { [weak self] in
            for await angle in angles {
                guard let self else { return }
                await self.apply(angle)
            }
        }
    }

    /// Stops applying angles.
    public func stopObservingRotation() {
        rotationTask?.cancel()
        rotationTask = nil
    }

    /// A Boolean value that indicates whether the rotation task runs.
    var isObservingRotation: Bool { rotationTask != nil && !(rotationTask!.isCancelled) }

    /// Adds an output to the session and turns it to the current angle.
    public func addOutput(_ output: any OutputService) async throws {
        try await session.addOutput(output)
        outputs.append(output)
        try? output.setVideoRotationAngle(captureRotationAngle)
    }

    /// Removes an output from the session.
    public func removeOutput(_ output: any OutputService) async throws {
        try await session.removeOutput(output)
        outputs.removeAll { $0 === output }
    }

    /// Stores `angle` and applies it to every output.
    func apply(_ angle: Double) {
        captureRotationAngle = angle
        for output in outputs { try? output.setVideoRotationAngle(angle) }
    }
}
