/// The colour description of a video: CICP code points for primaries, transfer function and
/// matrix (ITU-T H.273), written as a `colr` 'nclc' atom ('nclx' for full range).
public struct ColorDescription: Hashable, Sendable {
    /// The colour primaries code point: the `colr` primaries index (H.273 `ColourPrimaries`,
    /// H.264 VUI `colour_primaries`), such as 1 for BT.709.
    public var primaries: UInt16
    /// The transfer characteristics code point: the `colr` transfer function index (H.273
    /// `TransferCharacteristics`, H.264 VUI `transfer_characteristics`), such as 1 for BT.709.
    public var transferFunction: UInt16
    /// The matrix coefficients code point: the `colr` matrix index (H.273 `MatrixCoefficients`,
    /// H.264 VUI `matrix_coefficients`), such as 1 for BT.709.
    public var matrix: UInt16
    /// A Boolean value that indicates whether samples use the full range rather than video range
    /// (H.264 VUI `video_full_range_flag`); a 'nclc' `colr` atom has no field for it, so a
    /// full-range description is written as 'nclx'.
    public var isFullRange: Bool

    /// Creates a colour description from CICP code points (ITU-T H.273).
    /// - Parameters:
    ///   - primaries: The colour primaries code point.
    ///   - transferFunction: The transfer characteristics code point.
    ///   - matrix: The matrix coefficients code point.
    ///   - isFullRange: Whether samples use the full range rather than video range; video range
    ///     by default.
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
