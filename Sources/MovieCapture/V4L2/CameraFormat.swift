import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// A pixel format a camera offers, with its sizes.
public struct CameraFormat: Hashable, Sendable, CustomStringConvertible {
    /// The format's V4L2 code.
    public var pixelFormat: V4L2PixelFormat
    /// The driver's description, such as "YUYV 4:2:2".
    public var name: String
    /// The frame sizes offered in this format.
    public var sizes: [CameraFrameSize]

    /// A textual representation of the format: its code, the driver's name for it and its sizes.
    public var description: String { "\(pixelFormat) (\(name)): " + sizes.map(\.description).joined(separator: "; ") }
}
