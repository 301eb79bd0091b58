import Synchronization
import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// What a running session tells its outputs about the sources feeding them.
struct SourceDescription: Sendable {
    var video: (format: VideoFormat, isLive: Bool, name: String)?
    /// A V4L2 camera's packed layout (YUYV, UYVY) and the switch that lends it to frames
    /// unconverted, for a hardware encoder that takes it.
    var cameraLayout: (layout: V4L2PixelFormat, lending: NativePictureSwitch)?
    var audio: (format: PCMFormat, isLive: Bool, name: String, hasOwnClock: Bool)?
    /// Wakes file sources waiting for an output to consume media: call it when the output
    /// starts to.
    var wakeWaitingSources: @Sendable () -> Void = {}
    /// The session's pressure: where a recording reports its lag and a live view gives way.
    var pressure: PressureCoordinator?
}
