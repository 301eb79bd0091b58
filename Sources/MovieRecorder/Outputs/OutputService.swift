import Synchronization
import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// The protocol every capture output conforms to, as in Apple's AVCam: the capture service
/// applies the current rotation to each output through it.
///
/// A new output starts at angle 0, unmirrored, until a service applies the current angle.
public protocol OutputService: AnyObject, Sendable {
    /// The clockwise rotation, in degrees, applied to what the output produces: 0, 90, 180 or 270.
    var videoRotationAngle: Double { get }
    /// A Boolean value that indicates whether the output's pictures are mirrored after rotation.
    var isVideoMirrored: Bool { get }
    /// Sets the rotation applied to what the output produces next.
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    func setVideoRotationAngle(_ angle: Double) throws(OrientationError)
    /// Sets whether pictures are flipped left to right after the rotation.
    func setVideoMirrored(_ mirrored: Bool)
    /// Returns a Boolean value that indicates whether the output can apply `angle`, as
    /// `AVCaptureConnection.isVideoRotationAngleSupported(_:)` does.
    func isVideoRotationAngleSupported(_ angle: Double) -> Bool
}

extension OutputService {
    /// Returns a Boolean value that indicates whether the output can apply `angle`: `true` for
    /// 0, 90, 180 and 270, the angles a movie's track matrix, a photo's Exif orientation and a
    /// video frame's orientation can state; `false` for any other angle.
    public func isVideoRotationAngleSupported(_ angle: Double) -> Bool {
        (try? VideoOrientation(rotationAngle: angle)) != nil
    }
}

extension MediaReceiver {
    func finishDisconnecting() async {}
}
