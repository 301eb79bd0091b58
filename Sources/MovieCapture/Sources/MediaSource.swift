import MovieContainer
import MoviePlatform
/// Why a source stopped delivering before it was asked to.
public struct InterruptionReason: Hashable, Sendable, CustomStringConvertible {
    /// The source's name: a device path or name.
    public var source: String
    /// What happened, in words a user can act on.
    public var message: String
    /// When it happened, on ``MonotonicClock``.
    public var timestamp: UInt64

    /// Creates a reason.
    /// - Parameters:
    ///   - source: The source's name: a device path or name.
    ///   - message: What happened, in words a user can act on.
    ///   - timestamp: When it happened on ``MonotonicClock``; now by default.
    public init(source: String, message: String, timestamp: UInt64 = MonotonicClock.now()) {
        self.source = source
        self.message = message
        self.timestamp = timestamp
    }

    /// A textual representation of the reason: the source's name, then the message.
    public var description: String { "\(source): \(message)" }
}

/// What a video source reports from its capture thread.
public enum VideoSourceEvent: Sendable {
    /// A picture.
    case frame(VideoFrame)
    /// Frames lost before delivery: skipped driver sequence numbers, or no free buffer because
    /// consumers are behind.
    case dropped(count: Int)
    /// A buffer the driver flagged as corrupt (V4L2_BUF_FLAG_ERROR); it was not delivered.
    case corrupted
    /// The device was lost or failed; no more events follow.
    case interrupted(InterruptionReason)
    /// A file source reached its end; no more events follow.
    case ended
}

/// What an audio source reports from its capture thread.
public enum AudioSourceEvent: Sendable {
    /// Interleaved PCM samples and the time they were captured.
    case buffer(AudioBuffer)
    /// The device's buffer overflowed (ALSA -EPIPE) and capture was restarted; the frames in
    /// between are lost.
    case overrun
    /// The device was suspended (ALSA -ESTRPIPE) and resumed.
    case resumedFromSuspend
    /// The device was lost; no more events follow.
    case interrupted(InterruptionReason)
    /// A file source reached its end; no more events follow.
    case ended
}

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

/// A source of PCM audio: an ALSA device, the tone generator or a WAV file.
public protocol AudioSource: AnyObject, Sendable {
    /// A name for messages and listings: the ALSA device name, "tone", a file name.
    var name: String { get }
    /// The format buffers are delivered in.
    var format: PCMFormat { get }
    /// A Boolean value that indicates whether audio arrives in real time (a microphone) rather
    /// than as fast as it is consumed (a file).
    var isLive: Bool { get }
    /// Opens the device and starts capturing on a dedicated thread, calling `handler` there in
    /// order; blocking, so call it off the cooperative pool (`CaptureSession` does).
    /// - Parameter handler: Receives every buffer and event; it must return promptly.
    /// - Throws: ``DeviceError`` or ``SourceError`` when the source cannot start.
    func start(handler: @escaping @Sendable (AudioSourceEvent) -> Void) throws
    /// Stops capturing and waits for the capture thread to end.
    func stop()
}
