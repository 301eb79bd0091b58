/// The shape of a pixel: `horizontal`:`vertical`, 1:1 for square pixels.
public struct SampleAspectRatio: Hashable, Sendable {
    /// The pixel's relative width: the `pasp` horizontal spacing (H.264 VUI `sar_width`).
    public var horizontal: UInt32
    /// The pixel's relative height: the `pasp` vertical spacing (H.264 VUI `sar_height`).
    public var vertical: UInt32

    /// Creates a ratio of `horizontal`:`vertical`.
    /// - Parameters:
    ///   - horizontal: The pixel's relative width.
    ///   - vertical: The pixel's relative height.
    public init(horizontal: UInt32, vertical: UInt32) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// The ratio an `aspect_ratio_idc` of 1 to 16 stands for (H.264 Table E-1, H.265 Table
    /// E-1); `nil` for any other value.
    package init?(indicator: UInt32) {
        let table: [(UInt32, UInt32)] = [(1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11),
                                         (32, 11), (80, 33), (18, 11), (15, 11), (64, 33), (160, 99),
                                         (4, 3), (3, 2), (2, 1)]
        guard indicator >= 1, indicator <= 16 else { return nil }
        self.init(horizontal: table[Int(indicator) - 1].0, vertical: table[Int(indicator) - 1].1)
    }
}
