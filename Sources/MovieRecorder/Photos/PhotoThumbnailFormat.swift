/// The embedded thumbnail a JPEG photo carries, like `embeddedThumbnailPhotoFormat` in
/// `AVCapturePhotoSettings`.
///
/// The thumbnail is a small baseline JPEG in the Exif segment's IFD1, stored unrotated like the
/// photo, with the same Exif `Orientation` in IFD0 and IFD1, so a viewer turns both the same way.
/// `exiftool -b -ThumbnailImage` extracts it.
public struct PhotoThumbnailFormat: Hashable, Sendable {
    /// The thumbnail's longer side in pixels, at most; 160 by default (the Exif convention of
    /// 160x120). The picture is reduced by a whole factor, so the side may come out smaller.
    public var longestSide: Int
    /// The thumbnail's JPEG quality, 1–100; 75 by default.
    public var quality: Int

    /// Creates a thumbnail format.
    /// - Parameters:
    ///   - longestSide: The longer side's limit in pixels, 16–320 (the Exif segment must stay
    ///     under 64 KB).
    ///   - quality: The JPEG quality, 1–100.
    public init(longestSide: Int = 160, quality: Int = 75) {
        self.longestSide = longestSide
        self.quality = quality
    }
}
