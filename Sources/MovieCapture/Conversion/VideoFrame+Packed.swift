#if canImport(Glibc)
import Glibc
#endif
internal import CYUV

extension VideoFrame {
    /// Writes the picture in a camera's packed 4:2:2 `layout` (YUYV, UYVY) at `destination`,
    /// `bytesPerLine` a row, filling `rows` rows (the last repeated into rows past the picture):
    /// for an encoder that takes the camera's layout and is handed an I420 copy. False when the
    /// frame is not I420, the layout is another, or libyuv is not installed.
    package func writePacked(_ layout: V4L2PixelFormat, into destination: UnsafeMutableRawPointer, bytesPerLine: Int,
                             rows: Int) -> Bool {
        // libyuv writes whole pixel pairs: an odd width's last pair too.
        let rowBytes = (width + 1) / 2 * 4
        guard pixelFormat == .i420, layout == .yuyv || layout == .uyvy, bytesPerLine >= rowBytes, rows >= height,
              CYUV_load() == nil else { return false }
        let planes = self.planes
        let (y, u, v) = (planes[0], planes[1], planes[2])
        let target = destination.assumingMemoryBound(to: UInt8.self)
        func bytes(_ plane: PlaneView) -> UnsafePointer<UInt8> { plane.baseAddress.assumingMemoryBound(to: UInt8.self) }
        let write = layout == .yuyv ? I420ToYUY2 : I420ToUYVY
        guard write(bytes(y), Int32(y.bytesPerRow), bytes(u), Int32(u.bytesPerRow), bytes(v), Int32(v.bytesPerRow),
                    target, Int32(bytesPerLine), Int32(width), Int32(height)) == 0 else { return false }
        for row in height..<rows { memcpy(destination + row * bytesPerLine, destination + (height - 1) * bytesPerLine, rowBytes) }
        return true
    }
}
