/// The colour description of a video: CICP code points for primaries, transfer function and
/// matrix (ITU-T H.273), written as a `colr` 'nclc' atom.
public struct ColorDescription: Hashable, Sendable {
    public var primaries: UInt16
    public var transferFunction: UInt16
    public var matrix: UInt16
    public var isFullRange: Bool

    public init(primaries: UInt16, transferFunction: UInt16, matrix: UInt16, isFullRange: Bool = false) {
        self.primaries = primaries
        self.transferFunction = transferFunction
        self.matrix = matrix
        self.isFullRange = isFullRange
    }

    /// ITU-R BT.709, video range: what HD cameras and x264 with `--colorprim bt709` describe.
    public static let bt709 = ColorDescription(primaries: 1, transferFunction: 1, matrix: 1)
    /// SMPTE 170M (BT.601 525-line), video range.
    public static let smpte170m = ColorDescription(primaries: 6, transferFunction: 6, matrix: 6)
}
