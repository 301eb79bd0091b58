import MovieContainer
import MovieEncoding

/// How a ``LiveStreamOutput`` encodes and cuts its stream.
///
/// The defaults favour latency at a small cost: a picture of at most 640×360 scaled from the
/// camera's, encoded by libx264 with the `zerolatency` tune (no B-frames, no lookahead) at the
/// `ultrafast` preset — beside a 720p `veryfast` recording it adds 12% to the recorder's CPU
/// with one viewer and 18% with eight, where `veryfast` added 34% (Benchmarks, case k) — parts
/// of about 200 ms
/// in segments of about one second, AAC at 64 kbit/s per channel. The recording, if any, keeps
/// its own settings.
public struct LiveStreamSettings: Hashable, Sendable {
    /// The widest picture the stream carries; the camera's picture is scaled down to fit within
    /// this and ``maximumHeight``, keeping its aspect ratio (never up).
    public var maximumWidth = 640
    /// The tallest picture the stream carries.
    public var maximumHeight = 360
    /// The x264 preset of the stream's encoder.
    public var preset = "ultrafast"
    /// How the stream's bits are spent; constant quality 26 by default.
    public var rateControl = VideoEncoderSettings.RateControl.constantQuality(crf: 26)
    /// The longest a part (LL-HLS's partial segment) lasts; it holds whole frames, so at 30 fps
    /// 200 ms is six frames.
    public var partTarget: Duration = .milliseconds(200)
    /// About how long a segment lasts: a whole number of parts, each segment starting with an
    /// IDR.
    public var segmentDuration: Duration = .seconds(1)
    /// A Boolean value that indicates whether the session's audio goes into the stream (as AAC).
    public var includesAudio = true
    /// The AAC bit rate per channel, in bits per second.
    public var audioBitRatePerChannel = 64_000
    /// A Boolean value that indicates whether the pictures are turned in pixels (libyuv) to the
    /// output's angle and mirroring, rather than marked with it: for viewers that ignore the
    /// orientation, such as Home Assistant and GStreamer over RTSP. The stream is then marked
    /// upright, and it starts anew, at the turned size, when the angle turns between portrait
    /// and landscape. `false` by default: the browser's page and FFmpeg turn the picture themselves.
    public var turnsPictures = false
    /// A Boolean value that indicates whether the stream is encoded only while an
    /// ``RTSPServer`` client watches it (its audio also while a client watches a path that
    /// carries that audio): for an output that serves RTSP and nothing else, so that an
    /// unwatched `/sub` costs nothing. Its first picture is always encoded, for the format.
    /// `false` by default: the live view's page, HLS and ``LiveStreamOutput/segments`` need
    /// every picture.
    public var encodesOnDemand = false

    /// Creates settings with the defaults.
    public init() {}
}
