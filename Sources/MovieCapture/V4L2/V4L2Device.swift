import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

extension String {
    package var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " || s.last == "\0" { s.removeLast() }
        return s
    }
}

extension FrameRate {
    package var shortDescription: String {
        seconds == 1 ? "\(frames)" : (frames % seconds == 0 ? "\(frames / seconds)" : "\(frames)/\(seconds)")
    }
}

/// An open V4L2 device node: the ioctls this library uses, through libv4l2 with its own format
/// conversion off (this library converts with libv4lconvert itself, so native formats stay
/// visible and I420/NV12 pass through without a copy).
package final class V4L2Device: @unchecked Sendable {
    // @unchecked: used by one capture thread; QBUF from other threads is what the ioctl allows.
    package let fd: Int32
    package let path: String

    package init(path: String) throws(DeviceError) {
        self.path = path
        for library in [SystemLibrary.v4l2, .v4lconvert] {
            if let failure = library.load() { throw DeviceError(.libraryMissing, device: path, step: "opening", detail: failure) }
        }
        let raw = try SystemCall.retrying { open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
            .get { DeviceError.v4l2($0.rawValue, device: path, step: "opening") }
        let wrapped = v4l2_fd_open(raw, Int32(V4L2_DISABLE_CONVERSION))
        guard wrapped >= 0 else {
            let e = errno
            Glibc.close(raw)
            throw .v4l2(e, device: path, step: "opening through libv4l2")
        }
        fd = wrapped
    }

    package func close() { _ = v4l2_close(fd) }

    /// The V4L2 video nodes, `/dev/video0` first, in numeric order.
    package static func nodePaths() -> [String] {
        guard let dir = opendir("/dev") else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("video") { names.append(name) }
        }
        return names.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }.map { "/dev/" + $0 }
    }

    /// Runs an ioctl, retrying on EINTR; returns 0, or errno on failure.
    package func ioctl<T>(_ request: UInt, _ argument: inout T) -> Int32 {
        let fd = fd
        let result = withUnsafeMutablePointer(to: &argument) { pointer in
            SystemCall.retrying { CV4L2_ioctl(fd, request, pointer) }
        }
        switch result {
        case .success: return 0
        case .failure(let error): return error.rawValue
        }
    }

    package func ioctl<T>(_ request: UInt, _ argument: inout T, step: String) throws(DeviceError) {
        let e = ioctl(request, &argument)
        guard e == 0 else { throw .v4l2(e, device: path, step: step) }
    }

    package struct Capabilities {
        package var driver: String
        package var card: String
        package var busInfo: String
        package var canCapture: Bool
        package var canStream: Bool
        /// A memory-to-memory device (a codec or a converter): single-planar or multi-planar.
        package var isMemoryToMemory: Bool
        /// Its queues use the multi-planar API.
        package var isMultiplanar: Bool
    }

    package func capabilities() throws(DeviceError) -> Capabilities {
        var cap = v4l2_capability()
        try ioctl(CV4L2_VIDIOC_QUERYCAP(), &cap, step: "querying capabilities (VIDIOC_QUERYCAP)")
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        func text<T>(_ tuple: T) -> String {
            withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return Capabilities(driver: text(cap.driver), card: text(cap.card), busInfo: text(cap.bus_info),
                            canCapture: caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0,
                            canStream: caps & UInt32(V4L2_CAP_STREAMING) != 0,
                            isMemoryToMemory: caps & UInt32(V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE) != 0,
                            isMultiplanar: caps & UInt32(V4L2_CAP_VIDEO_M2M_MPLANE) != 0)
    }

    /// Every pixel format, size and frame rate the device offers.
    package func formats() -> [CameraFormat] {
        var result: [CameraFormat] = []
        for index in 0..<256 {
            var desc = v4l2_fmtdesc()
            desc.index = UInt32(index)
            desc.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            guard ioctl(CV4L2_VIDIOC_ENUM_FMT(), &desc) == 0 else { break }
            let name = withUnsafeBytes(of: desc.description) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            result.append(CameraFormat(pixelFormat: V4L2PixelFormat(rawValue: desc.pixelformat), name: name,
                                       sizes: sizes(for: desc.pixelformat)))
        }
        return result
    }

    private func sizes(for pixelFormat: UInt32) -> [CameraFrameSize] {
        var sizes: [CameraFrameSize] = []
        for index in 0..<512 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = pixelFormat
            guard ioctl(CV4L2_VIDIOC_ENUM_FRAMESIZES(), &size) == 0 else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let (w, h) = (size.discrete.width, size.discrete.height)
                sizes.append(CameraFrameSize(width: Int(w), height: Int(h), frameRates: rates(pixelFormat, w, h)))
            } else {
                // Stepwise or continuous: offer the common sizes inside the range.
                let s = size.stepwise
                for (w, h) in [(320, 240), (640, 480), (1280, 720), (1920, 1080), (3840, 2160)]
                where UInt32(w) >= s.min_width && UInt32(w) <= s.max_width && UInt32(h) >= s.min_height && UInt32(h) <= s.max_height {
                    sizes.append(CameraFrameSize(width: w, height: h, frameRates: rates(pixelFormat, UInt32(w), UInt32(h))))
                }
                break
            }
        }
        return sizes
    }

    private func rates(_ pixelFormat: UInt32, _ width: UInt32, _ height: UInt32) -> [FrameRate] {
        var rates: [FrameRate] = []
        for index in 0..<64 {
            var interval = v4l2_frmivalenum()
            interval.index = UInt32(index)
            interval.pixel_format = pixelFormat
            interval.width = width
            interval.height = height
            guard ioctl(CV4L2_VIDIOC_ENUM_FRAMEINTERVALS(), &interval) == 0 else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                // An interval of n/d seconds is a rate of d/n frames per second.
                if interval.discrete.numerator > 0, interval.discrete.denominator > 0 {
                    rates.append(FrameRate(frames: interval.discrete.denominator, seconds: interval.discrete.numerator).reduced)
                }
            } else {
                let fastest = interval.stepwise.min
                if fastest.numerator > 0 { rates.append(FrameRate(frames: fastest.denominator, seconds: fastest.numerator).reduced) }
                break
            }
        }
        return rates.sorted { $0.framesPerSecondTimes1000 > $1.framesPerSecondTimes1000 }
    }

    /// Whether the driver has control `id` (`VIDIOC_QUERYCTRL`) and it is not disabled; buttons
    /// too, which `control(_:)` cannot read.
    package func hasControl(_ id: UInt32) -> Bool {
        var query = v4l2_queryctrl()
        query.id = id
        return ioctl(CV4L2_VIDIOC_QUERYCTRL(), &query) == 0 && query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0
    }

    /// Reads an integer control, or `nil` when the driver does not have it.
    package func control(_ id: UInt32) -> Int32? {
        var control = v4l2_control()
        control.id = id
        return ioctl(CV4L2_VIDIOC_G_CTRL(), &control) == 0 ? control.value : nil
    }
}

extension FrameRate {
    /// The same rate with the fraction reduced (30000/1000 → 30/1).
    package var reduced: FrameRate {
        func gcd(_ a: UInt32, _ b: UInt32) -> UInt32 { b == 0 ? a : gcd(b, a % b) }
        let g = max(1, gcd(frames, seconds))
        return FrameRate(frames: frames / g, seconds: seconds / g)
    }

    package var framesPerSecondTimes1000: UInt64 { UInt64(frames) * 1000 / UInt64(max(1, seconds)) }
}
