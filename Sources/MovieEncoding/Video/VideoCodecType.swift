/// The video codecs a movie can be recorded in, named as `AVVideoCodecType` names them: the
/// raw value is the sample description's format.
public enum VideoCodecType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// H.264 through libx264, in an 'avc1' sample description.
    case h264 = "avc1"
    /// HEVC (H.265) Main through libx265, in an 'hvc1' sample description: about a third smaller
    /// than H.264 at the same quality, at a third of the speed or less (see the Recording article).
    case hevc = "hvc1"

    /// The codec's name: "H.264" or "HEVC".
    public var description: String { self == .h264 ? "H.264" : "HEVC" }
}
