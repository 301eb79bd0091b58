import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

extension PhotoOutput {
    /// Whether a new photo can be taken at once, like `AVCapturePhotoOutput.CaptureReadiness`:
    /// what a shutter button shows. A ``PhotoOutputReadinessCoordinator`` reports it.
    ///
    /// When several apply, the first in this order is reported: ``sessionNotRunning``,
    /// ``notReadyWaitingForCapture``, ``notReadyMomentarily``, ``notReadyWaitingForProcessing``.
    public enum CaptureReadiness: String, Hashable, Sendable, CaseIterable {
        /// The output is not connected to a running session with a video input.
        case sessionNotRunning
        /// A photo can be taken now.
        case ready
        /// A tracked request was announced and its `capturePhoto` has not started yet (the
        /// shutter was just pressed).
        case notReadyMomentarily
        /// A tracked request waits for its frame: the next frame, without zero shutter lag or
        /// when no kept frame is close enough to the request.
        case notReadyWaitingForCapture
        /// As many photos as the output allows are being encoded and written
        /// (``PhotoOutput/maximumPhotosInFlight``); the next waits for one to finish.
        case notReadyWaitingForProcessing
    }

    /// Where a tracked request is.
    enum TrackedPhase: Equatable {
        /// Announced; `capturePhoto` not called yet.
        case announced
        /// `capturePhoto` called, waiting for a photo in flight to finish.
        case waitingForSlot
        /// Admitted, waiting for its frame.
        case waitingForFrame
    }

    /// The readiness for a coordinator's tracked phases.
    static func readiness(connected: Bool, tracked: some Collection<TrackedPhase>, inFlight: Int, limit: Int) -> CaptureReadiness {
        if !connected { return .sessionNotRunning }
        if tracked.contains(.waitingForFrame) { return .notReadyWaitingForCapture }
        if tracked.contains(.announced) { return .notReadyMomentarily }
        if inFlight >= limit || tracked.contains(.waitingForSlot) { return .notReadyWaitingForProcessing }
        return .ready
    }
}
