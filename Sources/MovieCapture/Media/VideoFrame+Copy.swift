#if canImport(Glibc)
import Glibc
#endif

extension VideoFrame {
    /// A copy of the picture in a buffer leased from `pool`, tightly packed, with the same
    /// timestamp and sequence number: for keeping a frame longer than its source can spare the
    /// buffer. `nil` when the pool has no free buffer or its buffers are too small.
    package func copied(into pool: PixelBufferPool) -> VideoFrame? {
        let size = pixelFormat.byteCount(width: width, height: height)
        guard pool.bufferSize >= size, let lease = pool.lease() else { return nil }
        var destination = lease.base
        let chromaWidth = (width + 1) / 2
        let rowBytes: [Int] = pixelFormat == .i420 ? [width, chromaWidth, chromaWidth] : [width, chromaWidth * 2]
        for (plane, row) in zip(planes, rowBytes) {
            if plane.bytesPerRow == row {
                memcpy(destination, plane.baseAddress, row * plane.height)
                destination += row * plane.height
            } else {
                for y in 0..<plane.height {
                    memcpy(destination, plane.baseAddress + y * plane.bytesPerRow, row)
                    destination += row
                }
            }
        }
        return VideoFrame(packed: lease.base, width: width, height: height, pixelFormat: pixelFormat,
                          timestamp: timestamp, sequenceNumber: sequenceNumber, storage: lease)
    }
}
