import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// A size a camera offers for a pixel format, with its frame rates.
public struct CameraFrameSize: Hashable, Sendable, CustomStringConvertible {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// The frame rates offered at this size, fastest first.
    public var frameRates: [FrameRate]

    /// A textual representation of the size and its rates, such as `1280x720 @ 30, 15`.
    public var description: String {
        "\(width)x\(height)" + (frameRates.isEmpty ? "" : " @ " + frameRates.map(\.shortDescription).joined(separator: ", "))
    }
}
