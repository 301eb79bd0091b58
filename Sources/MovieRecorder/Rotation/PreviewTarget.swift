import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// A view that shows the camera preview and can be turned: the Linux counterpart of the preview
/// layer's connection in AVCam.
public protocol PreviewTarget: AnyObject, Sendable {
    /// How the display showing the preview is rotated clockwise from the device's natural
    /// orientation (0, 90, 180, 270).
    var displayRotation: Int { get }
    /// Applies a preview rotation; called synchronously, in order.
    func setPreviewRotationAngle(_ angle: Double)
}
