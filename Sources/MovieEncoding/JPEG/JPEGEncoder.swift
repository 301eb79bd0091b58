import MovieContainer
import MoviePlatform
import MovieCapture
internal import CTurboJPEG

/// Compresses video frames to baseline JPEG with libturbojpeg, straight from their 4:2:0 planes:
/// no colour conversion and no resampling, the pixels stored as captured.
///
/// The corresponding C function is `tjCompressFromYUVPlanes`, reached through the
/// `CTurboJPEG_compressI420` shim. Each call owns its compressor handle and destroys it on every
/// path. Blocking: call it on a dedicated thread.
package enum JPEGEncoder {
    /// How much work the compressor spends per picture.
    package enum Effort: Sendable {
        /// The fast integer DCT (less accurate in fine detail) and the standard Huffman tables.
        case fast
        /// The accurate integer DCT and the standard Huffman tables: baseline JPEG.
        case accurate
        /// The accurate DCT and Huffman tables fitted to the picture, which libjpeg builds only
        /// for progressive JPEG in libturbojpeg 2.1's API: a smaller file for a second pass.
        case optimized

        var flags: Int32 {
            switch self {
            case .fast: TJFLAG_FASTDCT
            case .accurate: TJFLAG_ACCURATEDCT
            case .optimized: TJFLAG_ACCURATEDCT | TJFLAG_PROGRESSIVE
            }
        }
    }

    /// Compresses `frame` at `quality` (1–100) with `effort`.
    ///
    /// I420 planes go to libturbojpeg as they are; NV12's interleaved chroma is split into
    /// separate U and V planes first.
    /// - Returns: The JPEG as libturbojpeg writes it, with its JFIF APP0 segment.
    /// - Throws: ``PhotoError`` with ``PhotoError/Code/encodingFailed`` and libturbojpeg's
    ///   message, naming `owner`.
    package static func encode(_ frame: VideoFrame, quality: Int, effort: Effort = .accurate,
                               owner: String) throws(PhotoError) -> [UInt8] {
        let chromaWidth = (frame.width + 1) / 2, chromaHeight = (frame.height + 1) / 2
        switch frame.pixelFormat {
        case .i420:
            let (y, u, v) = (frame.planes[0], frame.planes[1], frame.planes[2])
            return try compress(y: y.baseAddress, yStride: y.bytesPerRow, u: u.baseAddress, uStride: u.bytesPerRow,
                                v: v.baseAddress, vStride: v.bytesPerRow, frame: frame, quality: quality, flags: effort.flags,
                                owner: owner)
        case .nv12:
            let (y, uv) = (frame.planes[0], frame.planes[1])
            // One buffer for both planes, U then V; the array wrappers' closures would lose the
            // typed error.
            let planeSize = chromaWidth * chromaHeight
            let chroma = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * planeSize)
            defer { chroma.deallocate() }
            for row in 0..<chromaHeight {
                let source = uv.baseAddress + row * uv.bytesPerRow
                let u = chroma + row * chromaWidth, v = u + planeSize
                for column in 0..<chromaWidth {
                    u[column] = source.load(fromByteOffset: 2 * column, as: UInt8.self)
                    v[column] = source.load(fromByteOffset: 2 * column + 1, as: UInt8.self)
                }
            }
            return try compress(y: y.baseAddress, yStride: y.bytesPerRow, u: chroma, uStride: chromaWidth,
                                v: chroma + planeSize, vStride: chromaWidth, frame: frame, quality: quality,
                                flags: effort.flags, owner: owner)
        }
    }

    private static func compress(y: UnsafeRawPointer, yStride: Int, u: UnsafeRawPointer, uStride: Int,
                                 v: UnsafeRawPointer, vStride: Int, frame: VideoFrame, quality: Int, flags: Int32,
                                 owner: String) throws(PhotoError) -> [UInt8] {
        func failure(_ detail: String) -> PhotoError {
            PhotoError(.encodingFailed, "\(owner): compressing a \(frame.width)x\(frame.height) \(frame.pixelFormat.rawValue) frame to JPEG with libturbojpeg failed: \(detail)")
        }
        if let missing = SystemLibrary.turboJPEG.load() { throw failure(missing) }
        guard let handle = tjInitCompress() else { throw failure("tjInitCompress returned no compressor") }
        defer { tjDestroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { if let jpeg { tjFree(jpeg) } }
        let status = CTurboJPEG_compressI420(handle, y, Int32(yStride), u, Int32(uStride), v, Int32(vStride),
                                             Int32(frame.width), Int32(frame.height), Int32(quality), flags, &jpeg, &size)
        guard status == 0, let jpeg, size > 0 else {
            throw failure(tjGetErrorStr2(handle).map { String(cString: $0) } ?? "error \(status)")
        }
        return Array(UnsafeBufferPointer(start: jpeg, count: Int(size)))
    }
}
