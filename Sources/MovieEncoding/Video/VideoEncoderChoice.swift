/// The encoder a recording set to ``VideoEncoderSettings/Encoder/automatic`` took, and why.
public struct VideoEncoderChoice: Hashable, Sendable, CustomStringConvertible {
    /// The hardware encoder's node, or nil when the recording encodes in software.
    public let device: String?
    /// The encoder: "libx264", "libx265", or the driver and node of a hardware encoder.
    public let encoder: String
    /// Why: the hardware encoder that offers the codec at the size, or why each one found was
    /// passed over.
    public let reason: String

    /// The encoder and, in brackets, the reason.
    public var description: String { "\(encoder) (\(reason))" }
}
