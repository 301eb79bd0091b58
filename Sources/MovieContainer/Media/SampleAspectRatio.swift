/// The shape of a pixel: `horizontal`:`vertical`, 1:1 for square pixels.
public struct SampleAspectRatio: Hashable, Sendable {
    public var horizontal: UInt32
    public var vertical: UInt32

    public init(horizontal: UInt32, vertical: UInt32) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
}
