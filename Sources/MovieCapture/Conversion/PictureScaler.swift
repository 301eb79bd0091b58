import MovieContainer
import MoviePlatform
internal import CYUV

/// Scales I420 or NV12 frames to an I420 picture of another size with libyuv's bilinear filter:
/// the live view's smaller picture, encoded beside the recording's.
package enum PictureScaler {
    /// The size that fits `width`×`height` within `limit` (both sides), keeping the aspect ratio,
    /// with even sides; the picture's own size when it already fits.
    package static func size(fitting width: Int, _ height: Int, within limit: (width: Int, height: Int)) -> (width: Int, height: Int) {
        guard width > limit.width || height > limit.height else { return (width & ~1, height & ~1) }
        let scale = min(Double(limit.width) / Double(width), Double(limit.height) / Double(height))
        let even = { (value: Double) in max(2, Int(value.rounded()) & ~1) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }

    /// Loads libyuv, if it is not loaded yet.
    /// - Returns: `nil`, or what failed, naming the package to install.
    package static func load() -> String? { SystemLibrary.yuv.load() }

    /// A tightly packed I420 copy of `frame` at `width`×`height`, keeping its timestamp and
    /// sequence number. NV12 is converted to I420 first.
    /// - Precondition: ``load()`` succeeded; `width` and `height` are positive and even.
    package static func scaled(_ frame: VideoFrame, width: Int, height: Int) -> VideoFrame {
        let source = frame.pixelFormat == .nv12 ? i420(frame) : frame
        let byteCount = PixelFormat.i420.byteCount(width: width, height: height)
        let base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        let y = base.assumingMemoryBound(to: UInt8.self)
        let u = y + width * height, v = u + (width / 2) * (height / 2)
        let p = source.planes
        _ = I420Scale(p[0].baseAddress.assumingMemoryBound(to: UInt8.self), Int32(p[0].bytesPerRow),
                      p[1].baseAddress.assumingMemoryBound(to: UInt8.self), Int32(p[1].bytesPerRow),
                      p[2].baseAddress.assumingMemoryBound(to: UInt8.self), Int32(p[2].bytesPerRow),
                      Int32(source.width), Int32(source.height),
                      y, Int32(width), u, Int32(width / 2), v, Int32(width / 2), Int32(width), Int32(height), kFilterBilinear)
        return VideoFrame(packed: base, width: width, height: height, pixelFormat: .i420, timestamp: frame.timestamp,
                          sequenceNumber: frame.sequenceNumber, storage: owner(base, byteCount))
    }

    /// A packed I420 frame turned clockwise by `orientation`'s angle and then, if it is
    /// mirrored, flipped left to right: the picture as the orientation says to show it, for a
    /// viewer that cannot turn it. A quarter turn swaps the sides.
    /// - Precondition: ``load()`` succeeded; `frame` is packed I420 with even sides.
    package static func turned(_ frame: VideoFrame, to orientation: VideoOrientation) -> VideoFrame {
        let quarter = orientation.rotationAngle % 180 == 90
        let width = quarter ? frame.height : frame.width, height = quarter ? frame.width : frame.height
        let byteCount = PixelFormat.i420.byteCount(width: width, height: height)
        let rotated = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        let planes = frame.planes.map { $0.baseAddress.assumingMemoryBound(to: UInt8.self) }
        let strides = frame.planes.map { Int32($0.bytesPerRow) }
        let (y, u, v) = i420Planes(rotated, width: width, height: height)
        _ = I420Rotate(planes[0], strides[0], planes[1], strides[1], planes[2], strides[2],
                       y, Int32(width), u, Int32(width / 2), v, Int32(width / 2), Int32(frame.width), Int32(frame.height),
                       RotationMode(rawValue: UInt32(orientation.rotationAngle)))
        var base = rotated
        if orientation.isMirrored {
            base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
            let (my, mu, mv) = i420Planes(base, width: width, height: height)
            _ = I420Mirror(y, Int32(width), u, Int32(width / 2), v, Int32(width / 2),
                           my, Int32(width), mu, Int32(width / 2), mv, Int32(width / 2), Int32(width), Int32(height))
            rotated.deallocate()
        }
        return VideoFrame(packed: base, width: width, height: height, pixelFormat: .i420, timestamp: frame.timestamp,
                          sequenceNumber: frame.sequenceNumber, storage: owner(base, byteCount))
    }

    /// The Y, U and V planes of a packed I420 picture at `base`.
    private static func i420Planes(_ base: UnsafeMutableRawPointer, width: Int, height: Int)
        -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        let y = base.assumingMemoryBound(to: UInt8.self)
        let u = y + width * height
        return (y, u, u + (width / 2) * (height / 2))
    }

    /// NV12 as a packed I420 frame of the same size, for an encoder that takes planar chroma.
    /// - Precondition: ``load()`` succeeded.
    package static func i420(_ frame: VideoFrame) -> VideoFrame {
        let width = frame.width, height = frame.height
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let byteCount = PixelFormat.i420.byteCount(width: width, height: height)
        let base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        let y = base.assumingMemoryBound(to: UInt8.self)
        let u = y + width * height, v = u + chromaWidth * chromaHeight
        let p = frame.planes
        _ = NV12ToI420(p[0].baseAddress.assumingMemoryBound(to: UInt8.self), Int32(p[0].bytesPerRow),
                       p[1].baseAddress.assumingMemoryBound(to: UInt8.self), Int32(p[1].bytesPerRow),
                       y, Int32(width), u, Int32(chromaWidth), v, Int32(chromaWidth), Int32(width), Int32(height))
        return VideoFrame(packed: base, width: width, height: height, pixelFormat: .i420, timestamp: frame.timestamp,
                          sequenceNumber: frame.sequenceNumber, storage: owner(base, byteCount))
    }

    /// Frees `base` with the last reference to the frame over it.
    private static func owner(_ base: UnsafeMutableRawPointer, _ byteCount: Int) -> ImmutableBytes {
        ImmutableBytes(unsafeUnchangingBuffer: UnsafeRawBufferPointer(start: base, count: byteCount)) { $0.baseAddress?.deallocate() }
    }
}
