import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CV4L2

/// A V4L2 camera — a USB webcam, a board camera, the kernel's vivid test driver — as a
/// ``VideoSource``.
///
/// Capture uses memory-mapped streaming with six buffers, polled on a dedicated thread. I420
/// (`YU12`) and NV12 pass to the encoder without a copy (a hardware encoder imports them as
/// DMA-BUFs where the driver exports its buffers); while a hardware encoder that takes YUYV or
/// UYVY records, those pass unconverted too (their I420 planes made only if read); otherwise YUYV, UYVY, NV21 and RGB are converted
/// to I420 by libyuv, Motion JPEG is decoded straight to planes by TurboJPEG (full range, which
/// the movie records), and anything else (Bayer, vendor formats) by libv4lconvert — on the
/// capture thread, the driver's buffer queued again as soon as it is converted
/// (<doc:CameraFormats>). Timestamps are the driver's monotonic capture times;
/// skipped sequence numbers count as dropped frames; buffers flagged `V4L2_BUF_FLAG_ERROR` are
/// reported as corrupt and left out; a device that disappears (ENODEV, POLLERR) ends capture with
/// an interruption.
public final class V4L2Camera: VideoSource, NativePictureLending {
    /// Size presets, like `AVCaptureSession.Preset`: the largest size the camera offers at or
    /// below the preset's.
    public enum Quality: Sendable {
        /// The presets, by the largest size each allows: `low` 320×240, `medium` 640×480, `high`
        /// 1280×720, `hd1920x1080` 1920×1080 and `hd4K` 3840×2160.
        case low, medium, high, hd1920x1080, hd4K
        var maximum: (Int, Int) {
            switch self {
            case .low: (320, 240)
            case .medium: (640, 480)
            case .high: (1280, 720)
            case .hd1920x1080: (1920, 1080)
            case .hd4K: (3840, 2160)
            }
        }
    }

    /// The device as discovered.
    public let device: CameraDevice
    /// The format frames are delivered in: I420 or NV12 at the chosen size and rate (full range
    /// for Motion JPEG).
    public let format: VideoFormat
    /// The camera's own pixel format that was chosen.
    public let nativePixelFormat: V4L2PixelFormat
    /// Where the camera sits and how its sensor is mounted, from `V4L2_CID_CAMERA_ORIENTATION`
    /// and `V4L2_CID_CAMERA_SENSOR_ROTATION`; ``CameraMounting/unknown`` when the driver has
    /// neither. A `RotationCoordinator` can override it.
    public let mounting: CameraMounting
    /// Whether YUYV and UYVY pictures are lent to frames as they are rather than converted at
    /// capture: asked for by a recording whose hardware encoder takes the camera's layout.
    package let nativePictures = NativePictureSwitch()
    package var nativePictureLayout: V4L2PixelFormat? {
        NativePicture.lendable.contains(nativePixelFormat) ? nativePixelFormat : nil
    }
    /// The device path, such as `/dev/video0`, as the source's name.
    public var name: String { device.path }
    /// Always `true`: a camera delivers frames in real time.
    public var isLive: Bool { true }

    private let thread: SourceThread

    /// Opens `path`, checks that it is a streaming capture device and picks a format.
    ///
    /// - Parameters:
    ///   - path: The device node, such as `/dev/video0`.
    ///   - width: An exact width, with `height`; otherwise the largest size at or below `quality`.
    ///   - height: An exact height, with `width`.
    ///   - frameRate: an exact rate; otherwise 30 fps when offered, else the fastest.
    ///   - pixelFormat: the camera format to capture, such as `.yuyv`; otherwise I420 or NV12
    ///     when offered (no conversion), else YUYV, UYVY, NV21, MJPEG, RGB or BGR, else the first
    ///     the camera lists (converted by libv4lconvert).
    ///   - quality: The size preset used when no exact size is given.
    /// - Throws: ``DeviceError``: missing (`notFound`), no permission (`permissionDenied`, add
    ///   the user to the video group), not a capture device (`notSupported`), or a size, rate
    ///   or format it does not offer (`unsupportedFormat`, listing what it does offer).
    public init(path: String = "/dev/video0", width: Int? = nil, height: Int? = nil, frameRate: FrameRate? = nil,
                pixelFormat: V4L2PixelFormat? = nil, quality: Quality = .high) throws(DeviceError) {
        let dev = try V4L2Device(path: path)
        defer { dev.close() }
        let caps = try dev.capabilities()
        guard caps.canCapture, caps.canStream else {
            throw DeviceError(.notSupported, device: path, step: "checking capabilities",
                              detail: "it is not a streaming video capture device (driver \(caps.driver), \(caps.card)); try another /dev/video node")
        }
        let formats = dev.formats()
        mounting = Self.mounting(of: dev)
        device = CameraDevice(path: path, driver: caps.driver, name: caps.card, busInfo: caps.busInfo, formats: formats)
        let choice = try Self.choose(from: formats, device: path, width: width, height: height, frameRate: frameRate,
                                     pixelFormat: pixelFormat, quality: quality)
        nativePixelFormat = choice.format
        format = VideoFormat(width: choice.width, height: choice.height,
                             pixelFormat: choice.format.directPixelFormat ?? .i420, frameRate: choice.rate,
                             color: CameraPictureConverter.color(for: choice.format))
        thread = SourceThread(sourceName: path, threadName: "movrec-v4l2")
    }

    /// The capture devices on this machine: /dev/video* nodes that capture and stream (metadata
    /// nodes are skipped), with their formats, sizes and rates.
    public static func devices() -> [CameraDevice] {
        var found: [CameraDevice] = []
        for path in V4L2Device.nodePaths() {
            guard let dev = try? V4L2Device(path: path) else { continue }
            defer { dev.close() }
            guard let caps = try? dev.capabilities(), caps.canCapture, caps.canStream else { continue }
            found.append(CameraDevice(path: path, driver: caps.driver, name: caps.card, busInfo: caps.busInfo,
                                      formats: dev.formats()))
        }
        return found
    }

    /// Reads the camera location and sensor rotation controls (camera class, IDs base + 34/35).
    package static func mounting(of device: V4L2Device) -> CameraMounting {
        let cameraClassBase: UInt32 = 0x009A_0900
        let orientation = device.control(cameraClassBase + 34)
        let rotation = device.control(cameraClassBase + 35)
        guard orientation != nil || rotation != nil else { return .unknown }
        let position: CameraMounting.Position = switch orientation {
        case 0: .front
        case 1: .back
        default: .external
        }
        // The driver states the correction counter-clockwise; CameraMounting keeps it clockwise.
        return CameraMounting(position: position, sensorRotation: (360 - Int(rotation ?? 0)) % 360)
    }

    package static let preference: [V4L2PixelFormat] = [.yuv420, .nv12, .yuyv, .uyvy, .nv21, .mjpeg, .rgb24, .bgr24]

    package static func choose(from formats: [CameraFormat], device: String, width: Int?, height: Int?, frameRate: FrameRate?,
                       pixelFormat: V4L2PixelFormat?, quality: Quality) throws(DeviceError)
        -> (format: V4L2PixelFormat, width: Int, height: Int, rate: FrameRate)
    {
        let offered = formats.map(\.description).joined(separator: "\n  ")
        func unsupported(_ what: String) -> DeviceError {
            DeviceError(.unsupportedFormat, device: device, step: "choosing a format",
                        detail: "\(what); it offers:\n  \(offered.isEmpty ? "(nothing)" : offered)")
        }
        var candidates = formats
        if let pixelFormat {
            candidates = formats.filter { $0.pixelFormat == pixelFormat }
            guard !candidates.isEmpty else { throw unsupported("it has no \(pixelFormat) format") }
        } else {
            candidates.sort {
                (preference.firstIndex(of: $0.pixelFormat) ?? preference.count) < (preference.firstIndex(of: $1.pixelFormat) ?? preference.count)
            }
        }
        if let width, let height {
            guard width % 2 == 0, height % 2 == 0 else {
                throw unsupported("\(width)x\(height) cannot be encoded as 4:2:0; width and height must be even")
            }
            for candidate in candidates {
                guard let size = candidate.sizes.first(where: { $0.width == width && $0.height == height }) else { continue }
                if let rate = try pickRate(size, requested: frameRate) { return (candidate.pixelFormat, width, height, rate) }
            }
            throw unsupported(frameRate.map { "it does not offer \(width)x\(height) at \($0)" } ?? "it does not offer \(width)x\(height)")
        }
        let (maxW, maxH) = quality.maximum
        for candidate in candidates {
            let fitting = candidate.sizes.filter { $0.width <= maxW && $0.height <= maxH && $0.width % 2 == 0 && $0.height % 2 == 0 }
                .sorted { $0.width * $0.height > $1.width * $1.height }
            for size in fitting {
                if let rate = try pickRate(size, requested: frameRate) { return (candidate.pixelFormat, size.width, size.height, rate) }
            }
        }
        throw unsupported(frameRate.map { "no size up to \(maxW)x\(maxH) at \($0)" } ?? "no size up to \(maxW)x\(maxH)")
    }

    private static func pickRate(_ size: CameraFrameSize, requested: FrameRate?) throws(DeviceError) -> FrameRate? {
        if let requested {
            if size.frameRates.isEmpty { return requested }
            return size.frameRates.first { $0.reduced == requested.reduced }
        }
        let thirty = FrameRate(frames: 30)
        if size.frameRates.contains(thirty) { return thirty }
        return size.frameRates.first ?? thirty
    }

    // MARK: Capture

    /// Opens the device, sets the chosen format, maps its buffers and starts streaming on a
    /// dedicated thread.
    /// - Parameter handler: Called on the capture thread with each frame, drop, corrupt buffer
    ///   or interruption.
    /// - Throws: ``DeviceError`` when the device cannot be opened, refuses the format or does
    ///   not start streaming.
    ///   ``SourceError`` with ``SourceError/Code/alreadyRunning`` while capturing.
    public func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {
        let stream = try V4L2Stream(camera: self)
        do {
            try thread.start { run in stream.run(run, handler: handler) }
        } catch {
            stream.shutdown()  // opened and streaming, but no thread will run it
            throw error
        }
    }

    /// Stops streaming and waits for the capture thread to end; does nothing when not
    /// capturing.
    public func stop() { thread.stop() }

    /// Lends YUYV and UYVY pictures to frames as they are, their I420 planes made only when
    /// read, until ``releaseNativePictures()``: what a recording with a hardware encoder that
    /// takes the camera's layout asks for, and the device rig drives directly.
    @_spi(DeviceRig) public func requestNativePictures() { nativePictures.request() }

    /// Withdraws one ``requestNativePictures()``.
    @_spi(DeviceRig) public func releaseNativePictures() { nativePictures.release() }
}
