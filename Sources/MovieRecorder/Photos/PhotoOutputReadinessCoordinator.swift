import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// Tells a shutter button when a ``PhotoOutput`` can take the next photo, like
/// `AVCapturePhotoOutputReadinessCoordinator`.
///
/// Call ``startTrackingCaptureRequest(using:)`` with a photo's settings when the shutter is
/// pressed, just before `capturePhoto`; ``readinessUpdates`` then reports, in order, each change
/// of ``captureReadiness``: `notReadyMomentarily` until the capture starts,
/// `notReadyWaitingForCapture` while it waits for its frame, `notReadyWaitingForProcessing`
/// while the photos in flight are at the output's limit, and `ready` again. Tracking of a
/// request ends by itself when its frame is chosen or its capture fails. Updates are delivered
/// on whichever thread made the change, never while the output holds a lock.
public final class PhotoOutputReadinessCoordinator: Sendable {
    /// The output whose readiness this reports.
    public let photoOutput: PhotoOutput
    private let key: ObjectIdentifier

    /// Each change of ``captureReadiness``, starting with its value when the coordinator was
    /// made; the newest 64 are buffered for a slow reader. It ends when the coordinator goes.
    public let readinessUpdates: AsyncStream<PhotoOutput.CaptureReadiness>

    /// Creates a coordinator for `photoOutput`.
    public init(photoOutput: PhotoOutput) {
        self.photoOutput = photoOutput
        let (stream, continuation) = AsyncStream.makeStream(of: PhotoOutput.CaptureReadiness.self,
                                                            bufferingPolicy: .bufferingNewest(64))
        readinessUpdates = stream
        key = photoOutput.link(continuation)
    }

    deinit {
        photoOutput.unlink(key)
    }

    /// Whether the output can take a photo now, given the requests this coordinator tracks.
    public var captureReadiness: PhotoOutput.CaptureReadiness { photoOutput.readiness(for: key) }

    /// Starts tracking the photo with `settings`: call it before passing them to `capturePhoto`.
    public func startTrackingCaptureRequest(using settings: PhotoSettings) {
        photoOutput.track(settings.uniqueID, for: key, true)
    }

    /// Stops tracking the photo with `uniqueID`, for a request that will not be made after all.
    public func stopTrackingCaptureRequest(using uniqueID: Int64) {
        photoOutput.track(uniqueID, for: key, false)
    }
}
