import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What a captured photo produced.
public struct PhotoResult: Hashable, Sendable, CustomStringConvertible {
    /// The JPEG file's path.
    public var path: String
    /// The stored picture's width in pixels: the frame's, never swapped by the orientation.
    public var width: Int
    /// The stored picture's height in pixels.
    public var height: Int
    /// The orientation written as the Exif `Orientation` tag.
    public var orientation: VideoOrientation
    /// The file's size in bytes.
    public var byteCount: Int

    /// A textual representation of the result: path, size, byte count and orientation with its
    /// Exif value.
    public var description: String {
        "\(path): \(width)x\(height) JPEG, \(byteCount) bytes, orientation \(orientation) (Exif \(orientation.exifOrientation))"
    }
}
