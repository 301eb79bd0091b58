import MovieContainer
import MoviePlatform
internal import CYUV

/// Turns one camera buffer into an I420 picture: libyuv's SIMD converters for packed 4:2:2
/// (YUYV, UYVY), NV21 and RGB/BGR; TurboJPEG for Motion JPEG; libv4lconvert for what neither
/// covers (Bayer, vendor formats). I420 and NV12 need no conversion and never come here.
///
/// One converter belongs to one capture thread: it keeps scratch memory between pictures.
package final class CameraPictureConverter {
    private enum Path {
        case yuyv, uyvy, nv21, rgb, bgr
        case mjpeg(JPEGPlaneDecoder)
        case fallback(V4LConvertFallback)
    }

    package let pixelFormat: V4L2PixelFormat
    package let width: Int
    package let height: Int
    private let bytesPerLine: Int
    private let path: Path

    /// Formats converted by libyuv or TurboJPEG; the rest go to libv4lconvert.
    package static let nativelyConverted: Set<V4L2PixelFormat> = [.yuyv, .uyvy, .nv21, .rgb24, .bgr24, .mjpeg]

    /// - Parameters:
    ///   - bytesPerLine: the driver's row length for packed and semi-planar formats (0: tightly packed).
    ///   - descriptor: the device's descriptor for libv4lconvert, or -1 for recorded buffers.
    package init(pixelFormat: V4L2PixelFormat, width: Int, height: Int, bytesPerLine: Int = 0, descriptor: Int32 = -1,
                 device: String) throws(DeviceError) {
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
            throw DeviceError(.unsupportedFormat, device: device, step: "starting the \(pixelFormat) conversion",
                              detail: "\(width)x\(height) cannot be converted to 4:2:0; width and height must be even")
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine > 0 ? bytesPerLine : Self.packedBytesPerLine(pixelFormat, width: width)
        // libyuv for all of them: MJPEG resamples chroma with it.
        if Self.nativelyConverted.contains(pixelFormat), let failure = SystemLibrary.yuv.load() {
            throw DeviceError(.libraryMissing, device: device, step: "starting the \(pixelFormat) conversion", detail: failure)
        }
        switch pixelFormat {
        case .yuyv: path = .yuyv
        case .uyvy: path = .uyvy
        case .nv21: path = .nv21
        case .rgb24: path = .rgb
        case .bgr24: path = .bgr
        case .mjpeg: path = .mjpeg(try JPEGPlaneDecoder(width: width, height: height, device: device))
        default:
            path = .fallback(try V4LConvertFallback(pixelFormat: pixelFormat, width: width, height: height,
                                                    bytesPerLine: self.bytesPerLine, descriptor: descriptor, device: device))
        }
    }

    /// How the converted pictures' samples are encoded, when the conversion decides it: full-range
    /// BT.601 for JPEG (JFIF), video-range BT.601 for RGB (libyuv's matrix); `nil` when the
    /// camera's own YUV passes through unchanged or libv4lconvert converts.
    package static func color(for format: V4L2PixelFormat) -> ColorDescription? {
        switch format {
        case .mjpeg: ColorDescription(primaries: 1, transferFunction: 1, matrix: 6, isFullRange: true)
        case .rgb24, .bgr24: ColorDescription(primaries: 1, transferFunction: 1, matrix: 6)
        default: nil
        }
    }

    /// Whether the fallback, libv4lconvert, does the work.
    package var usesFallback: Bool {
        if case .fallback = path { return true }
        return false
    }

    /// Tightly packed row length of a camera format without a driver's padding (0 for MJPEG).
    package static func packedBytesPerLine(_ format: V4L2PixelFormat, width: Int) -> Int {
        switch format {
        case .yuyv, .uyvy: 2 * width
        case .rgb24, .bgr24: 3 * width
        case .mjpeg: 0
        default: width
        }
    }

    /// The bytes one picture takes in a buffer (without the driver's padding beyond rows), or
    /// `nil` for a compressed format.
    package static func pictureSize(_ format: V4L2PixelFormat, width: Int, height: Int, bytesPerLine: Int = 0) -> Int? {
        let line = bytesPerLine > 0 ? bytesPerLine : packedBytesPerLine(format, width: width)
        switch format {
        case .mjpeg: return nil
        case .nv12, .nv21: return line * height + line * ((height + 1) / 2)
        case .yuv420: return line * height + 2 * ((line + 1) / 2) * ((height + 1) / 2)
        default: return line * height
        }
    }

    /// Converts one buffer into `destination`.
    package func convert(_ buffer: UnsafeRawBufferPointer, into destination: I420Destination) -> ConversionOutcome {
        if case .mjpeg(let decoder) = path { return decoder.decode(buffer, into: destination) }
        if case .fallback(let fallback) = path { return fallback.convert(buffer, into: destination) }
        guard let needed = Self.pictureSize(pixelFormat, width: width, height: height, bytesPerLine: bytesPerLine),
              buffer.count >= needed, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return .corrupt("the buffer holds \(buffer.count) bytes, less than one \(width)x\(height) \(pixelFormat) picture")
        }
        let stride = Int32(bytesPerLine), cw = Int32(destination.chromaWidth)
        let (w, h) = (Int32(width), Int32(height))
        let status: Int32 = switch path {
        case .yuyv: YUY2ToI420(base, stride, destination.y, w, destination.u, cw, destination.v, cw, w, h)
        case .uyvy: UYVYToI420(base, stride, destination.y, w, destination.u, cw, destination.v, cw, w, h)
        case .nv21: NV21ToI420(base, stride, base + bytesPerLine * height, stride, destination.y, w, destination.u, cw,
                               destination.v, cw, w, h)
        // V4L2's RGB3 is R, G, B in memory: libyuv calls that RAW (its RGB24 is B, G, R).
        case .rgb: RAWToI420(base, stride, destination.y, w, destination.u, cw, destination.v, cw, w, h)
        case .bgr: RGB24ToI420(base, stride, destination.y, w, destination.u, cw, destination.v, cw, w, h)
        case .mjpeg, .fallback: 0
        }
        return status == 0 ? .converted : .corrupt("libyuv refused the \(pixelFormat) picture (\(status))")
    }
}
