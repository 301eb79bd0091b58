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

    /// Creates a format.
    /// - Parameters:
    ///   - width: The picture width in pixels.
    ///   - height: The picture height in pixels.
    ///   - pixelFormat: The layout of the planes; I420 by default.
    ///   - frameRate: The nominal frame rate.
    public init(width: Int, height: Int, pixelFormat: PixelFormat = .i420, frameRate: FrameRate) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
    }

    /// A textual representation of the format, such as `1280x720 i420 at 30 fps`.
    public var description: String { "\(width)x\(height) \(pixelFormat.rawValue) at \(frameRate)" }
}
