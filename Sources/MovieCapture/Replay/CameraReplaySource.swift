import MovieContainer
import MoviePlatform

/// Recorded camera buffers — raw YUYV, UYVY, NV12, NV21, RGB or Bayer pictures one after
/// another, or a Motion-JPEG stream — played back through exactly the path a V4L2 camera's
/// buffers take once dequeued: the same conversion, the same pool, the same frames.
///
/// Each picture is mapped from the file as a driver's buffer would be (at most `bufferCount`
/// at once) and handed to the conversion as the camera's buffer is; a converted picture's mapping
/// goes back at once, an I420 or NV12 one when the outputs let go of it. The replay is not live:
/// it delivers as fast as the outputs take frames, and they are stamped at the nominal rate, as
/// a Y4M file's are. A damaged JPEG counts as a corrupt frame and is skipped, as a camera's is.
/// YUYV and UYVY are lent unconverted, as a camera's are, while a recording's hardware encoder
/// takes them.
public final class CameraReplaySource: VideoSource, NativePictureLending {
    /// The file.
    public let path: String
    /// The file's path, as the source's name.
    public var name: String { path }
    /// The camera format the file holds.
    public let cameraFormat: V4L2PixelFormat
    /// The frames delivered: I420 (NV12 passes through), with MJPEG's full range.
    public let format: VideoFormat
    /// Always `false`: a file is read as fast as the outputs take frames.
    public let isLive = false
    /// Pictures mapped from the file at once, like a driver's buffers.
    public let bufferCount: Int

    private let pictureSize: Int?
    private let thread: SourceThread
    private let delivery = LockedValue<CameraBufferDelivery?>(nil)
    /// Lends YUYV and UYVY pictures unconverted while a recording's encoder takes them.
    package let nativePictures = NativePictureSwitch()
    package var nativePictureLayout: V4L2PixelFormat? { NativePicture.lendable.contains(cameraFormat) ? cameraFormat : nil }

    /// Opens a file of recorded camera buffers.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - cameraFormat: What it holds; by default from its extension: `.yuyv`, `.uyvy`, `.nv12`,
    ///     `.nv21`, `.rgb` (RGB3), `.bgr` (BGR3), `.i420`/`.yuv` (YU12), `.mjpeg`/`.mjpg`.
    ///   - width: The picture width; a Motion-JPEG file's first picture gives it when `nil`.
    ///   - height: The picture height, with `width`.
    ///   - frameRate: The rate the frames are stamped at.
    ///   - bufferCount: Pictures mapped at once (at least 2).
    /// - Throws: ``SourceError``: a missing or unreadable file, an extension that names no
    ///   format, a missing size for a raw format, an odd size (4:2:0 needs even sides), or a
    ///   file that holds no whole picture. ``DeviceError`` with `libraryMissing` when TurboJPEG
    ///   is needed to read a Motion-JPEG file's size and is not installed.
    public init(path: String, cameraFormat: V4L2PixelFormat? = nil, width: Int? = nil, height: Int? = nil,
                frameRate: FrameRate = FrameRate(frames: 30), bufferCount: Int = 3) throws {
        func invalid(_ message: String) -> SourceError {
            SourceError(.invalidConfiguration, source: path, step: "opening the camera replay", message)
        }
        guard let format = cameraFormat ?? Self.cameraFormat(forExtensionOf: path) else {
            throw invalid("the extension names no camera format; use .yuyv, .uyvy, .nv12, .nv21, .rgb, .bgr, .i420 or .mjpeg, or pass the format")
        }
        guard bufferCount >= 2 else { throw invalid("buffer count \(bufferCount) must be at least 2") }
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        guard (width == nil) == (height == nil) else { throw invalid("give both width and height, or neither") }
        var size = width.flatMap { w in height.map { (w, $0) } }
        if format == .mjpeg {
            // The first picture's header (within its first MiB, past any Exif thumbnail) gives
            // the size, and must agree with one given.
            var scanner = MJPEGFrameScanner(file: file)
            let header = try scanner.nextPicture(from: 0).map { try file.read(at: $0.offset, count: min($0.count, 1 << 20)) }
            guard let header, let found = try JPEGPlaneDecoder.size(of: header, device: path) else {
                throw SourceError(.malformedFile, source: path, step: "reading the first JPEG", "no JPEG picture whose size TurboJPEG can read")
            }
            if let size, size != found {
                throw invalid("the pictures are \(found.width)x\(found.height), not \(size.0)x\(size.1); leave the size out")
            }
            size = found
        }
        guard let (w, h) = size else { throw invalid("a \(format) file needs the picture size (width and height)") }
        guard w > 0, h > 0, w % 2 == 0, h % 2 == 0 else { throw invalid("\(w)x\(h) cannot be encoded as 4:2:0; width and height must be even") }
        pictureSize = CameraPictureConverter.pictureSize(format, width: w, height: h)
        if let pictureSize, file.size < UInt64(pictureSize) {
            throw SourceError(.malformedFile, source: path, step: "opening the camera replay",
                              "the file holds \(file.size) bytes, less than one \(w)x\(h) \(format) picture of \(pictureSize)")
        }
        self.path = path
        self.cameraFormat = format
        self.bufferCount = bufferCount
        self.format = VideoFormat(width: w, height: h, pixelFormat: format.directPixelFormat ?? .i420, frameRate: frameRate,
                                  color: CameraPictureConverter.color(for: format))
        thread = SourceThread(sourceName: path, threadName: "movrec-replay")
    }

    /// The camera format a file's extension names, if any.
    public static func cameraFormat(forExtensionOf path: String) -> V4L2PixelFormat? {
        guard let dot = path.lastIndex(of: ".") else { return nil }
        return switch path[path.index(after: dot)...].lowercased() {
        case "yuyv", "yuy2": .yuyv
        case "uyvy": .uyvy
        case "nv12": .nv12
        case "nv21": .nv21
        case "rgb", "rgb24": .rgb24
        case "bgr", "bgr24": .bgr24
        case "i420", "yuv": .yuv420
        case "mjpeg", "mjpg": .mjpeg
        default: nil
        }
    }

    /// How long converted buffers were held (from hand-over to going back), for the benchmarks.
    @_spi(Benchmarks) public var conversionStatistics: ConversionStatistics {
        delivery.withLock { $0 }?.statistics ?? ConversionStatistics()
    }

    /// Starts delivering the file's pictures on a thread of its own.
    /// - Throws: ``DeviceError`` with `libraryMissing` when libyuv, TurboJPEG or libv4lconvert
    ///   is not installed; ``SourceError`` when the file cannot be opened or the source runs.
    public func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        let delivery: CameraBufferDelivery
        do {
            delivery = try CameraBufferDelivery(pixelFormat: cameraFormat, width: format.width, height: format.height,
                                                bytesPerLine: 0, descriptor: -1, device: path, live: false,
                                                poolCount: bufferCount, nativePictures: nativePictures)
        } catch {
            try? file.close()
            throw error
        }
        self.delivery.withLock { $0 = delivery }
        let reader = ReplayReader(file: file, path: path, pictureSize: pictureSize, budget: MappingBudget(limit: bufferCount),
                                  timeline: format.frameRate)
        do {
            try thread.start { run in
                defer { try? file.close() }
                reader.run(run, delivery: delivery, handler: handler)
            }
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Stops delivering and waits for the thread to end.
    public func stop() { thread.stop() }
}
