import MovieContainer
import MoviePlatform

/// A source of PCM audio: an ALSA device, the tone generator or a WAV file.
public protocol AudioSource: AnyObject, Sendable {
    /// A name for messages and listings: the ALSA device name, "tone", a file name.
    var name: String { get }
    /// The format buffers are delivered in.
    var format: PCMFormat { get }
    /// A Boolean value that indicates whether audio arrives in real time (a microphone) rather
    /// than as fast as it is consumed (a file).
    var isLive: Bool { get }
    /// A Boolean value that indicates whether the source counts its samples on a clock of its
    /// own — a sound card's crystal — rather than on ``MonotonicClock``, which stamps the video.
    ///
    /// Such a clock is never exactly the system's: tens of parts per million apart is ordinary,
    /// several hundred for USB microphones. A recording measures the difference and, unless
    /// told not to, resamples the audio to follow the system clock. False by default: files
    /// and synthetic sources share the media clock and are never resampled.
    var hasOwnClock: Bool { get }
    /// Opens the device and starts capturing on a dedicated thread, calling `handler` there in
    /// order; blocking, so call it off the cooperative pool (`CaptureSession` does).
    /// - Parameter handler: Receives every buffer and event; it must return promptly.
    /// - Throws: ``DeviceError`` or ``SourceError`` when the source cannot start.
    func start(handler: @escaping @Sendable (AudioSourceEvent) -> Void) throws
    /// Stops capturing and waits for the capture thread to end.
    func stop()
}

extension AudioSource {
    /// False: the samples are counted on ``MonotonicClock``, as files and synthetic sources are.
    public var hasOwnClock: Bool { false }
}
