import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The shape of the frames a video source delivers.
public struct VideoFormat: Hashable, Sendable, CustomStringConvertible {
    /// The picture width in pixels.
    public var width: Int
    /// The picture height in pixels.
    public var height: Int
    /// The layout of the pictures' planes in memory.
    public var pixelFormat: PixelFormat
    /// The nominal frame rate; live sources may vary around it.
    public var frameRate: FrameRate
    /// How the samples are encoded, when the source knows: full-range BT.601 for a Motion-JPEG
    /// camera, video-range BT.601 for an RGB camera converted to YUV. The H.264 encoder takes the
    /// matrix and range from it (they describe the samples; no setting can change them) and the
    /// primaries and transfer function from its settings. `nil` when the source does not say.
    public var color: ColorDescription?

    /// Creates a format.
    /// - Parameters:
    ///   - width: The picture width in pixels.
    ///   - height: The picture height in pixels.
    ///   - pixelFormat: The layout of the planes; I420 by default.
    ///   - frameRate: The nominal frame rate.
    ///   - color: How the samples are encoded, when the source knows; `nil` by default.
    public init(width: Int, height: Int, pixelFormat: PixelFormat = .i420, frameRate: FrameRate, color: ColorDescription? = nil) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
        self.color = color
    }

    /// A textual representation of the format, such as `1280x720 i420 at 30 fps`.
    public var description: String {
        "\(width)x\(height) \(pixelFormat.rawValue) at \(frameRate)\(color?.isFullRange == true ? ", full range" : "")"
    }
}
