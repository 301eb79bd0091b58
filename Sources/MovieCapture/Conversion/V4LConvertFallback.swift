import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// libv4lconvert, for the camera formats libyuv and TurboJPEG do not cover (Bayer, vendor
/// formats): it converts to I420 in portable C.
package final class V4LConvertFallback {
    private let converter: OpaquePointer
    private var source: v4l2_format
    private var destination: v4l2_format

    /// - Parameter descriptor: the device's descriptor (libv4lconvert asks the driver about its
    ///   formats), or -1 for recorded buffers.
    package init(pixelFormat: V4L2PixelFormat, width: Int, height: Int, bytesPerLine: Int, descriptor: Int32,
                 device: String) throws(DeviceError) {
        if let failure = SystemLibrary.v4lconvert.load() {
            throw DeviceError(.libraryMissing, device: device, step: "starting libv4lconvert", detail: failure)
        }
        guard let converter = descriptor >= 0 ? v4lconvert_create(descriptor) : CV4L2_createOfflineConverter() else {
            let what = descriptor >= 0 ? "v4lconvert_create on the device" : "v4lconvert_create_with_dev_ops with no device behind it"
            throw DeviceError(.failed, device: device, step: "starting libv4lconvert",
                              detail: "\(what) failed: \(String(cString: strerror(errno)))")
        }
        self.converter = converter
        source = v4l2_format()
        source.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        source.fmt.pix.width = UInt32(width)
        source.fmt.pix.height = UInt32(height)
        source.fmt.pix.pixelformat = pixelFormat.rawValue
        source.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        source.fmt.pix.bytesperline = UInt32(bytesPerLine)
        destination = source
        destination.fmt.pix.pixelformat = V4L2PixelFormat.yuv420.rawValue
        destination.fmt.pix.bytesperline = UInt32(width)
        destination.fmt.pix.sizeimage = UInt32(PixelFormat.i420.byteCount(width: width, height: height))
    }

    deinit { v4lconvert_destroy(converter) }

    package func convert(_ buffer: UnsafeRawBufferPointer, into destination: I420Destination) -> ConversionOutcome {
        guard let base = buffer.baseAddress else { return .corrupt("the buffer is empty") }
        let written = v4lconvert_convert(converter, &source, &self.destination, UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self)),
                                         Int32(buffer.count), destination.y, Int32(self.destination.fmt.pix.sizeimage))
        return written > 0 ? .converted : .corrupt("libv4lconvert could not convert the buffer")
    }
}
