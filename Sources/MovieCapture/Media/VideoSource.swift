import MovieContainer
import MoviePlatform

/// A source of pictures: a V4L2 camera, the test pattern or a Y4M file. This is the seam
/// AVCam's `Camera` protocol is: a test source stands in for a real camera.
///
/// A source captures on a dedicated thread of its own and calls the handler there, in order;
/// the handler must not block for long (outputs queue and drop by their own policy).
public protocol VideoSource: AnyObject, Sendable {
    /// A name for messages and listings: the device path, "test pattern", a file name.
    var name: String { get }
    /// The format frames are delivered in.
    var format: VideoFormat { get }
    /// A Boolean value that indicates whether frames arrive in real time (a camera) rather
    /// than as fast as they are consumed (a file). Live frames are dropped when consumers fall
    /// behind; others wait.
    var isLive: Bool { get }
    /// Opens the device and starts capturing on a dedicated thread; blocking, so call it off
    /// the cooperative pool (`CaptureSession` does).
    func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws
    /// Stops capturing and waits for the capture thread to end.
    func stop()
}
