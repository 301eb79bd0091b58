import MovieContainer
import MovieCapture
#if canImport(Glibc)
import Glibc
#endif

extension V4L2CodecQueue {
    /// The planes of a 4:2:0 picture in one buffer of this queue's format: where each starts,
    /// its row stride and its rows (the driver's height, which may be padded past the picture's).
    func planeLayout(for pixelFormat: PixelFormat) -> [(offset: Int, stride: Int, rows: Int)] {
        let luma = bytesPerLine * height
        switch pixelFormat {
        case .i420:
            let chromaStride = bytesPerLine / 2, chromaRows = (height + 1) / 2
            return [(0, bytesPerLine, height), (luma, chromaStride, chromaRows),
                    (luma + chromaStride * chromaRows, chromaStride, chromaRows)]
        case .nv12:
            return [(0, bytesPerLine, height), (luma, bytesPerLine, (height + 1) / 2)]
        }
    }

    /// Copies a camera's packed picture (YUYV, UYVY) of `width`x`height` into buffer `index` at
    /// the queue's row length, the last row repeated into the rows a driver pads the height
    /// with; returns the bytes used.
    func copy(_ native: NativePicture, width: Int, height: Int, into index: Int) -> Int {
        let buffer = mappings[index]
        let rowBytes = min(bytesPerLine, width * 2, native.bytesPerLine)
        for row in 0..<self.height {
            let destination = row * bytesPerLine
            guard destination + rowBytes <= buffer.count else { break }
            memcpy(buffer.baseAddress! + destination, native.base + min(row, height - 1) * native.bytesPerLine, rowBytes)
        }
        return min(buffer.count, bytesPerLine * self.height)
    }

    /// Copies `frame` into buffer `index` in the queue's layout, the last row repeated into
    /// the rows a driver pads the height with; returns the bytes used.
    func copy(_ frame: VideoFrame, into index: Int) -> Int {
        let buffer = mappings[index]
        let layout = planeLayout(for: frame.pixelFormat)
        let chromaWidth = (frame.width + 1) / 2
        let widths = frame.pixelFormat == .i420 ? [frame.width, chromaWidth, chromaWidth] : [frame.width, chromaWidth * 2]
        var end = 0
        for ((plane, place), width) in zip(zip(frame.planes, layout), widths) {
            let rowBytes = min(place.stride, width)
            for row in 0..<place.rows {
                let source = plane.baseAddress + min(row, plane.height - 1) * plane.bytesPerRow
                let destination = place.offset + row * place.stride
                guard destination + rowBytes <= buffer.count else { break }
                memcpy(buffer.baseAddress! + destination, source, rowBytes)
            }
            end = max(end, min(buffer.count, place.offset + place.stride * place.rows))
        }
        return end
    }
}
