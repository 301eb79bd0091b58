/// How a photo is compressed and stored, like `AVVideoCodecType` in `AVCapturePhotoSettings`.
public enum PhotoCodec: String, Hashable, Sendable, CaseIterable {
    /// Baseline JPEG through libturbojpeg, the orientation in the Exif `Orientation` tag.
    case jpeg
    /// HEVC in a HEIF file (`.heic`) through libheif and x265, the orientation in the image's
    /// `irot` and `imir` properties (the Exif inside says Orientation 1, as MIAF asks). About
    /// half a JPEG's size at the same quality setting, and tens of times slower to encode.
    case hevc
}
