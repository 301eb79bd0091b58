import MovieContainer
import MoviePlatform
import MovieCapture

/// How the H.264 encoder (libx264) compresses video.
///
/// Defaults suit a live recorder: the `veryfast` preset, High profile, constant quality 23, a
/// keyframe every two seconds, BT.709 colour. `options` passes any other x264 option by its
/// command-line name (as `x264_param_parse` takes it), applied last.
public struct H264EncoderSettings: Hashable, Sendable {
    /// How bits are spent.
    public enum RateControl: Hashable, Sendable {
        /// Constant rate factor: 0 (lossless) to 51; lower is better and larger. x264's default is 23.
        case constantQuality(crf: Double)
        /// An average bitrate, with an optional VBV cap for streaming or fixed-rate links.
        case bitrate(kilobitsPerSecond: Int, maximumKilobitsPerSecond: Int? = nil, bufferKilobits: Int? = nil)
    }

    /// x264 preset: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower,
    /// veryslow or placebo.
    public var preset = "veryfast"
    /// x264 tune, such as `zerolatency` (no frame delay: no B-frames, no lookahead, sliced
    /// threads), `film` or `animation`.
    public var tune: String?
    /// H.264 profile: baseline, main, high (or high10, high422, high444 when the input needs
    /// them); `nil` lets x264 choose.
    public var profile: String? = "high"
    /// How bits are spent; constant quality (CRF) 23 by default.
    public var rateControl = RateControl.constantQuality(crf: 23)
    /// The longest distance between keyframes, in frames; `nil` means two seconds' worth.
    public var keyframeInterval: Int?
    /// The most consecutive B-frames; `nil` keeps the preset's (0 disables them).
    public var maxBFrames: Int?
    /// Encoder threads; 0 lets x264 choose from the processor count.
    public var threads = 0
    /// The colour description written into the stream's VUI (and from there into `colr`);
    /// `nil` leaves it unspecified.
    public var color: ColorDescription? = .bt709
    /// More x264 options by name, such as `["aq-mode": "2", "ref": "2"]`.
    public var options: [String: String] = [:]

    /// Creates settings with the defaults for a live recorder: the `veryfast` preset, High
    /// profile, CRF 23, a keyframe every two seconds and BT.709 colour.
    public init() {}
}
