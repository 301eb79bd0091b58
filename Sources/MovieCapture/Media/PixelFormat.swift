import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The pixel layouts frames are handed on in: both are 4:2:0 and both go to the encoder
/// without a copy.
public enum PixelFormat: String, Hashable, Sendable {
    /// Planar Y, then U, then V (V4L2 `YU12`, FFmpeg `yuv420p`).
    case i420
    /// Planar Y, then interleaved U/V (V4L2 `NV12`).
    case nv12

    /// The number of bytes of a tightly packed picture.
    public func byteCount(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }
}
