import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// A V4L2 pixel format code such as `YUYV`, `MJPG` or `YU12`.
public struct V4L2PixelFormat: Hashable, Sendable, CustomStringConvertible {
    /// The four characters packed little-endian, as V4L2's `v4l2_fourcc` packs them.
    public let rawValue: UInt32

    /// Creates a code from its 32-bit value, as a driver reports it.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a code from four ASCII characters, such as "YUYV".
    public init?(_ text: String) {
        guard let code = FourCC(text) else { return nil }
        // V4L2 codes are little-endian: the first character is the lowest byte.
        let b = code.bytes
        rawValue = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    /// A textual representation of the code: its four characters, trailing spaces removed; a
    /// big-endian variant (V4L2's flag in the top bit) as v4l2-ctl prints it, such as `Y16 -BE`.
    public var description: String {
        let bigEndian = rawValue & 0x8000_0000 != 0
        let code = rawValue & 0x7FFF_FFFF
        let bytes = [code & 0xFF, code >> 8 & 0xFF, code >> 16 & 0xFF, code >> 24 & 0xFF]
        let text = String(decoding: bytes.map { UInt8($0) }, as: UTF8.self)
        return bigEndian ? text + "-BE" : text.trimmingTrailingSpaces
    }

    /// Planar 4:2:0, Y then U then V (`YU12`); passed on without conversion.
    public static let yuv420 = V4L2PixelFormat("YU12")!
    /// Planar Y, then interleaved U/V, 4:2:0 (`NV12`); passed on without conversion.
    public static let nv12 = V4L2PixelFormat("NV12")!
    /// Planar Y, then interleaved V/U, 4:2:0 (`NV21`); converted to I420 by libyuv.
    public static let nv21 = V4L2PixelFormat("NV21")!
    /// Packed 4:2:2, Y U Y V (`YUYV`); converted to I420 by libyuv.
    public static let yuyv = V4L2PixelFormat("YUYV")!
    /// Packed 4:2:2, U Y V Y (`UYVY`); converted to I420 by libyuv.
    public static let uyvy = V4L2PixelFormat("UYVY")!
    /// Motion JPEG (`MJPG`), one JPEG picture a frame; decoded to I420 by TurboJPEG.
    public static let mjpeg = V4L2PixelFormat("MJPG")!
    /// Packed 8-bit RGB, three bytes a pixel (`RGB3`); converted to I420 by libyuv.
    public static let rgb24 = V4L2PixelFormat("RGB3")!
    /// Packed 8-bit BGR, three bytes a pixel (`BGR3`); converted to I420 by libyuv.
    public static let bgr24 = V4L2PixelFormat("BGR3")!

    /// The library pixel format this code is without conversion, if any.
    package var directPixelFormat: PixelFormat? {
        switch self {
        case .yuv420: .i420
        case .nv12: .nv12
        default: nil
        }
    }
}
