import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One uncompressed 4:2:0 picture and the moment it was captured.
///
/// Frames are immutable once delivered and may be shared by several outputs; the memory goes
/// back to its source (a pool, or a V4L2 buffer that is queued again) when the last reference
/// is released, as with CoreVideo's pixel buffer pools.
public final class VideoFrame: Sendable {
    /// The picture width in pixels.
    public let width: Int
    /// The picture height in pixels.
    public let height: Int
    /// The layout of the picture's planes: I420 or NV12.
    public let pixelFormat: PixelFormat
    /// Capture time on ``MonotonicClock`` in nanoseconds.
    public let timestamp: UInt64
    /// The source's frame counter (for V4L2, the driver's sequence number).
    public let sequenceNumber: UInt64
    /// The planes: Y, U, V for I420; Y, UV for NV12.
    ///
    /// A frame lent a camera's own YUYV or UYVY picture (while a hardware encoder that takes that
    /// layout records) makes them on first read.
    public var planes: [PlaneView] { deferred?.planes ?? madePlanes }
    /// The camera buffer the picture lies in, as a DMA-BUF a hardware encoder can import; nil
    /// for a copy, a converted picture or a source without exports.
    package let exportedPicture: ExportedPicture?
    /// The camera's own packed picture this frame was lent, its planes made from it on demand.
    package let nativePicture: NativePicture?
    private let madePlanes: [PlaneView]
    private let deferred: DeferredPlanes?
    private let storage: any Sendable

    /// Wraps memory that `storage` keeps alive.
    package convenience init(width: Int, height: Int, pixelFormat: PixelFormat, timestamp: UInt64, sequenceNumber: UInt64,
                             planes: [PlaneView], storage: any Sendable) {
        self.init(width: width, height: height, pixelFormat: pixelFormat, timestamp: timestamp, sequenceNumber: sequenceNumber,
                  planes: planes, storage: storage, exportedPicture: nil)
    }

    /// Wraps memory that `storage` keeps alive: a camera's buffer, exported as `exportedPicture`.
    package init(width: Int, height: Int, pixelFormat: PixelFormat, timestamp: UInt64, sequenceNumber: UInt64,
         planes: [PlaneView], storage: any Sendable, exportedPicture: ExportedPicture?) {
        self.exportedPicture = exportedPicture
        nativePicture = nil
        madePlanes = planes
        deferred = nil
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.timestamp = timestamp
        self.sequenceNumber = sequenceNumber
        self.storage = storage
    }

    /// A frame lent a camera's packed picture: its I420 planes are made by `convert` when first
    /// read, into the memory it returns. `storage` keeps the camera's buffer.
    package init(width: Int, height: Int, timestamp: UInt64, sequenceNumber: UInt64, native: NativePicture,
                 exportedPicture: ExportedPicture?, storage: any Sendable,
                 convert: @escaping @Sendable () -> (planes: [PlaneView], memory: any Sendable)) {
        self.width = width
        self.height = height
        pixelFormat = .i420
        self.timestamp = timestamp
        self.sequenceNumber = sequenceNumber
        nativePicture = native
        self.exportedPicture = exportedPicture
        madePlanes = []
        deferred = DeferredPlanes(convert)
        self.storage = storage
    }

    /// Whether a frame lent a camera's own picture had its planes made (something read them);
    /// false for every other frame. The device rig checks an encoder took the picture unconverted.
    @_spi(DeviceRig) public var convertedOnDemand: Bool { deferred?.isMade ?? false }

    /// Frames over a tightly packed buffer.
    package convenience init(packed base: UnsafeMutableRawPointer, width: Int, height: Int, pixelFormat: PixelFormat,
                     timestamp: UInt64, sequenceNumber: UInt64, storage: any Sendable) {
        self.init(width: width, height: height, pixelFormat: pixelFormat, timestamp: timestamp, sequenceNumber: sequenceNumber,
                  planes: Self.packedPlanes(base, width: width, height: height, pixelFormat: pixelFormat), storage: storage)
    }

    /// The planes of a tightly packed picture at `base`.
    package static func packedPlanes(_ base: UnsafeMutableRawPointer, width: Int, height: Int, pixelFormat: PixelFormat) -> [PlaneView] {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let y = PlaneView(baseAddress: UnsafeRawPointer(base), bytesPerRow: width, height: height)
        switch pixelFormat {
        case .i420:
            let u = base + width * height
            let v = u + chromaWidth * chromaHeight
            return [y, PlaneView(baseAddress: UnsafeRawPointer(u), bytesPerRow: chromaWidth, height: chromaHeight),
                    PlaneView(baseAddress: UnsafeRawPointer(v), bytesPerRow: chromaWidth, height: chromaHeight)]
        case .nv12:
            return [y, PlaneView(baseAddress: UnsafeRawPointer(base + width * height), bytesPerRow: chromaWidth * 2,
                                 height: chromaHeight)]
        }
    }

    /// Creates a frame holding a copy of `bytes`: a tightly packed I420 or NV12 picture, as an
    /// application's own ``VideoSource`` delivers it.
    /// - Parameters:
    ///   - bytes: The picture: the Y plane, then U and V (I420) or the interleaved UV plane
    ///     (NV12), rows without padding.
    ///   - width: The picture width in pixels.
    ///   - height: The picture height in pixels.
    ///   - pixelFormat: The layout of `bytes`.
    ///   - timestamp: The capture time on ``MonotonicClock``, in nanoseconds.
    ///   - sequenceNumber: The source's frame counter.
    /// - Throws: ``SourceError`` with ``SourceError/Code/invalidConfiguration`` when the size is
    ///   not positive or `bytes` does not hold exactly one such picture.
    public convenience init(copying bytes: [UInt8], width: Int, height: Int, pixelFormat: PixelFormat,
                            timestamp: UInt64, sequenceNumber: UInt64) throws(SourceError) {
        guard width > 0, height > 0, bytes.count == pixelFormat.byteCount(width: width, height: height) else {
            throw SourceError(.invalidConfiguration, source: "VideoFrame", step: "creating",
                              "\(bytes.count) bytes are not one \(width)x\(height) \(pixelFormat.rawValue) picture; it takes \(width > 0 && height > 0 ? pixelFormat.byteCount(width: width, height: height) : 0)")
        }
        let storage = OwnedPictureMemory(bytes)
        self.init(packed: storage.base, width: width, height: height, pixelFormat: pixelFormat, timestamp: timestamp,
                  sequenceNumber: sequenceNumber, storage: storage)
    }

    /// The same picture, claiming to lie in `picture` instead: for the device rig, to hand an
    /// encoder a DMA-BUF it must refuse. The new frame keeps this one alive.
    @_spi(DeviceRig) public func claiming(_ picture: ExportedPicture) -> VideoFrame {
        VideoFrame(width: width, height: height, pixelFormat: pixelFormat, timestamp: timestamp, sequenceNumber: sequenceNumber,
                   planes: planes, storage: self, exportedPicture: picture)
    }

    /// A copy of the picture's bytes, tightly packed (for analysis or saving).
    public func packedBytes() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(pixelFormat.byteCount(width: width, height: height))
        let chromaWidth = (width + 1) / 2
        let rowBytes: [Int] = pixelFormat == .i420 ? [width, chromaWidth, chromaWidth] : [width, chromaWidth * 2]
        for (plane, row) in zip(planes, rowBytes) {
            for y in 0..<plane.height {
                out.append(contentsOf: UnsafeRawBufferPointer(start: plane.baseAddress + y * plane.bytesPerRow, count: row))
            }
        }
        return out
    }
}

/// Memory a frame owns (an application's bytes, planes made on demand), freed with the last
/// reference.
final class OwnedPictureMemory: @unchecked Sendable {
    // @unchecked: written once when made, then only read through the frame's planes.
    let base: UnsafeMutableRawPointer
    init(byteCount: Int) {
        base = .allocate(byteCount: max(byteCount, 1), alignment: 64)
    }
    convenience init(_ bytes: [UInt8]) {
        self.init(byteCount: bytes.count)
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }
    deinit { base.deallocate() }
}
