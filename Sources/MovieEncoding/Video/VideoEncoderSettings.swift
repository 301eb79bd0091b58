import MovieContainer
import MoviePlatform
import MovieCapture

/// How a video encoder compresses: H.264 through libx264 or HEVC through libx265.
///
/// Defaults suit a live recorder: H.264, the `veryfast` preset, High profile (Main for HEVC),
/// constant quality 23 (28 for HEVC, x265's own default and about the same picture), a keyframe
/// every two seconds, BT.709 colour. The presets, tunes and option names are the encoder
/// library's own; `options` passes any other option by its command-line name (as
/// `x264_param_parse` and `x265_param_parse` take it), applied last.
public struct VideoEncoderSettings: Hashable, Sendable {
    /// How bits are spent.
    public enum RateControl: Hashable, Sendable {
        /// Constant rate factor: 0 (lossless) to 51; lower is better and larger. x264's default is 23.
        case constantQuality(crf: Double)
        /// An average bitrate, with an optional VBV cap for streaming or fixed-rate links.
        case bitrate(kilobitsPerSecond: Int, maximumKilobitsPerSecond: Int? = nil, bufferKilobits: Int? = nil)
    }

    /// Which encoder does the work, like `AVVideoEncoderSpecificationKey`'s hardware keys.
    public enum Encoder: Hashable, Sendable {
        /// libx264 or libx265, by ``VideoEncoderSettings/codec``: the default.
        case software
        /// The V4L2 memory-to-memory encoder at `device` (such as `/dev/video11`, a Raspberry
        /// Pi 4's); refused with an ``EncoderError`` when it cannot encode the codec at the size.
        case hardware(device: String)
        /// The first hardware encoder that offers the codec at the size
        /// (``VideoEncoderDevice/devices()``), else software.
        case automatic
    }

    /// Which encoder does the work: ``Encoder/software`` by default. With a hardware encoder
    /// ``preset``, ``tune``, ``maxBFrames``, ``threads`` and ``options`` do not apply (there
    /// are no B-frames); ``rateControl`` maps to its bitrate controls (constant quality to its
    /// default bitrate), ``keyframeInterval`` to its GOP, ``profile`` to its profile control.
    /// See <doc:HardwareEncoders>.
    public var encoder = Encoder.software
    /// The codec, like `AVVideoCodecKey`: ``VideoCodecType/h264`` by default.
    public var codec = VideoCodecType.h264
    /// The preset, the same names for both encoders: ultrafast, superfast, veryfast, faster,
    /// fast, medium, slow, slower, veryslow or placebo.
    public var preset = "veryfast"
    /// The tune, such as `zerolatency` (no frame delay: no B-frames, no lookahead), x264's
    /// `film` or `animation`, or x265's `psnr`, `ssim`, `grain` or `fastdecode`.
    public var tune: String?
    /// The profile: for H.264 baseline, main or high (or high10, high422, high444 when the
    /// input needs them); for HEVC main or mainstillpicture. `nil`, the default, means High for
    /// H.264 and Main for HEVC.
    public var profile: String?
    /// How bits are spent; `nil` means constant quality at the codec's default (CRF 23 for
    /// H.264, 28 for HEVC).
    public var rateControl: RateControl? = nil
    /// The longest distance between keyframes, in frames; `nil` means two seconds' worth.
    public var keyframeInterval: Int?
    /// The most consecutive B-frames; `nil` keeps the preset's (0 disables them).
    public var maxBFrames: Int?
    /// Encoder threads; 0 lets the encoder choose from the processor count.
    public var threads = 0
    /// The colour description written into the stream's VUI (and from there into `colr`);
    /// `nil` leaves it unspecified.
    public var color: ColorDescription? = .bt709
    /// More encoder options by name, such as `["aq-mode": "2", "ref": "2"]`, or x265's
    /// `["lossless": "1"]`.
    public var options: [String: String] = [:]

    /// Creates settings with the defaults for a live recorder: H.264, the `veryfast` preset,
    /// High profile, CRF 23, a keyframe every two seconds and BT.709 colour.
    public init() {}

    /// Creates settings for `codec` with the defaults for a live recorder.
    public init(codec: VideoCodecType) { self.codec = codec }

    /// The longest distance between keyframes at `rate`: ``keyframeInterval``, or two seconds'
    /// worth of frames rounded up.
    package func keyframeInterval(at rate: FrameRate) -> Int {
        keyframeInterval ?? max(1, Int((2 * UInt64(rate.frames) + UInt64(rate.seconds) - 1) / UInt64(rate.seconds)))
    }

    /// The description the stream carries: ``color``'s primaries and transfer function, and
    /// the source's matrix and range when it states them (they describe how its samples were
    /// made, as a JPEG's full-range BT.601).
    package func streamColor(source: ColorDescription?) -> ColorDescription? {
        guard let source else { return color }
        guard var stream = color else { return source }
        stream.matrix = source.matrix
        stream.isFullRange = source.isFullRange
        return stream
    }

    /// The profile the encoder applies: ``profile``, or the codec's usual one.
    package var effectiveProfile: String { profile ?? (codec == .h264 ? "high" : "main") }

    /// The rate control the encoder uses: ``rateControl``, or the codec's default CRF.
    package var effectiveRateControl: RateControl {
        rateControl ?? .constantQuality(crf: codec == .h264 ? 23 : 28)
    }
}
