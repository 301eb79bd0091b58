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
}
