import MovieContainer
import MoviePlatform
import MovieCapture

extension ExifMetadata {
    /// Makes a ``thumbnail``: `frame` reduced by the smallest integer factor that brings its
    /// longest side to `longestSide` pixels or fewer (``PictureDownscaler``), compressed to
    /// baseline JPEG by libturbojpeg, without the JFIF APP0 segment (Exif 2.32 §4.5.5 allows no
    /// APPn or COM marker in a thumbnail).
    ///
    /// The pixels are not rotated, like the photo's: IFD1 carries the photo's orientation. A
    /// 320x240 frame gives 160x120 and 1920x1080 gives 160x90; at the defaults the JPEG takes a
    /// few kilobytes, well below ``maximumThumbnailByteCount``. Blocking: call it on a
    /// dedicated thread.
    /// - Parameters:
    ///   - frame: The photo's frame, I420 or NV12.
    ///   - longestSide: The most pixels the thumbnail's longer side may have; 160 by default,
    ///     the size Exif 2.32 §4.5.5 recommends (160x120).
    ///   - quality: The JPEG quality, 1–100.
    ///   - owner: The name errors start with, such as "PhotoOutput".
    /// - Returns: The thumbnail's JPEG stream, SOI to EOI.
    /// - Throws: ``PhotoError`` with ``PhotoError/Code/encodingFailed`` when `longestSide` is
    ///   not positive, `quality` is outside 1–100, or libturbojpeg fails.
    package static func thumbnailJPEG(for frame: VideoFrame, longestSide: Int = 160, quality: Int = 75,
                                      owner: String) throws(PhotoError) -> [UInt8] {
        guard longestSide > 0 else {
            throw PhotoError(.encodingFailed, "\(owner): a thumbnail's longest side must be at least 1 pixel, not \(longestSide)")
        }
        guard (1...100).contains(quality) else {
            throw PhotoError(.encodingFailed, "\(owner): thumbnail JPEG quality \(quality) is out of range; use 1 to 100")
        }
        let small = PictureDownscaler.downscaled(frame, toFit: longestSide)
        let jpeg = try JPEGEncoder.encode(small, quality: quality, owner: owner)
        guard let thumbnail = JPEGHeader.removingApplicationSegments(from: jpeg) else {
            throw PhotoError(.encodingFailed, "\(owner): libturbojpeg's thumbnail is not a JPEG stream (no SOI, or a header segment runs past its end)")
        }
        return thumbnail
    }
}
