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

/// One plane of a picture in memory.
public struct PlaneView: @unchecked Sendable {
    // @unchecked: the memory is owned by the frame, which is immutable once delivered.
    /// The address of the plane's first row.
    public let baseAddress: UnsafeRawPointer
    /// Bytes from the start of one row to the next.
    public let bytesPerRow: Int
    /// The number of rows.
    public let height: Int
}

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
    public let planes: [PlaneView]
    private let storage: any Sendable

    /// Wraps memory that `storage` keeps alive.
    package init(width: Int, height: Int, pixelFormat: PixelFormat, timestamp: UInt64, sequenceNumber: UInt64,
         planes: [PlaneView], storage: any Sendable) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.timestamp = timestamp
        self.sequenceNumber = sequenceNumber
        self.planes = planes
        self.storage = storage
    }

    /// Frames over a tightly packed buffer.
    package convenience init(packed base: UnsafeMutableRawPointer, width: Int, height: Int, pixelFormat: PixelFormat,
                     timestamp: UInt64, sequenceNumber: UInt64, storage: any Sendable) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let y = PlaneView(baseAddress: UnsafeRawPointer(base), bytesPerRow: width, height: height)
        let planes: [PlaneView]
        switch pixelFormat {
        case .i420:
            let u = base + width * height
            let v = u + chromaWidth * chromaHeight
            planes = [y, PlaneView(baseAddress: UnsafeRawPointer(u), bytesPerRow: chromaWidth, height: chromaHeight),
                      PlaneView(baseAddress: UnsafeRawPointer(v), bytesPerRow: chromaWidth, height: chromaHeight)]
        case .nv12:
            planes = [y, PlaneView(baseAddress: UnsafeRawPointer(base + width * height), bytesPerRow: chromaWidth * 2,
                                   height: chromaHeight)]
        }
        self.init(width: width, height: height, pixelFormat: pixelFormat, timestamp: timestamp,
                  sequenceNumber: sequenceNumber, planes: planes, storage: storage)
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

/// A fixed set of equally sized buffers that frames borrow and give back when released.
///
/// When every buffer is out — the consumers are behind — ``lease()`` returns `nil` and the
/// source drops that frame and counts it: memory never grows.
package final class PixelBufferPool: Sendable {
    package let bufferSize: Int
    private let free: Mutex<[UnsafeMutableRawPointerBox]>
    private let all: [UnsafeMutableRawPointerBox]

    /// A buffer on loan; it goes back to the pool when the last frame holding it is released.
    package final class Lease: Sendable {
        let pointer: UnsafeMutableRawPointerBox
        private let pool: PixelBufferPool
        init(_ pointer: UnsafeMutableRawPointerBox, pool: PixelBufferPool) {
            self.pointer = pointer
            self.pool = pool
        }
        deinit { pool.free.withLock { $0.append(pointer) } }
        var base: UnsafeMutableRawPointer { pointer.pointer }
    }

    package init(bufferSize: Int, count: Int) {
        self.bufferSize = bufferSize
        let buffers = (0..<count).map { _ in
            UnsafeMutableRawPointerBox(UnsafeMutableRawPointer.allocate(byteCount: max(1, bufferSize), alignment: 64))
        }
        all = buffers
        free = Mutex(buffers)
    }

    deinit {
        // Leases hold the pool, so every buffer is back by now.
        for box in all { box.pointer.deallocate() }
    }

    /// Borrows a buffer, or `nil` when all are in use.
    package func lease() -> Lease? {
        guard let box = free.withLock({ $0.popLast() }) else { return nil }
        return Lease(box, pool: self)
    }
}

/// A raw pointer that may cross threads: the memory it points to is handed over, never shared
/// for writing.
package struct UnsafeMutableRawPointerBox: @unchecked Sendable {
    package let pointer: UnsafeMutableRawPointer
    package init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// Memory a frame made from an application's bytes owns, freed with the last reference.
private final class OwnedPictureMemory: @unchecked Sendable {
    // @unchecked: written once here, then only read through the frame's planes.
    let base: UnsafeMutableRawPointer
    init(_ bytes: [UInt8]) {
        base = .allocate(byteCount: max(bytes.count, 1), alignment: 64)
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }
    deinit { base.deallocate() }
}
