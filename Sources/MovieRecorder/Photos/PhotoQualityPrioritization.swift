import MovieEncoding

/// How much a photo's encoding may cost, like `AVCapturePhotoOutput.QualityPrioritization`.
///
/// The camera delivers 4:2:0 chroma, so every choice stores 4:2:0: encoding 4:4:4 would store
/// interpolated chroma at a larger size. What changes is the encoder's work:
///
/// | | JPEG (libturbojpeg) | HEIF (x265 preset) | quality setting |
/// |---|---|---|---|
/// | ``speed`` | fast integer DCT, standard Huffman tables | `ultrafast` | at most 80 |
/// | ``balanced`` | accurate integer DCT, standard Huffman tables | `fast` | as set |
/// | ``quality`` | accurate DCT, Huffman tables fitted to the picture (progressive JPEG) | `slow` | as set |
///
/// The Photos article gives the measured time and size of each.
public enum PhotoQualityPrioritization: String, Hashable, Sendable, CaseIterable {
    /// The least work: a burst keeps its pace.
    case speed
    /// The default: baseline JPEG as every camera writes it.
    case balanced
    /// The smallest file for the quality setting, for a second or more of HEVC at 1080p.
    case quality

    /// The quality the encoder is given for a requested `quality`.
    func effectiveQuality(_ quality: Int) -> Int {
        self == .speed ? min(quality, 80) : quality
    }

    /// The libturbojpeg work this choice asks for.
    var jpegEffort: JPEGEncoder.Effort {
        switch self {
        case .speed: .fast
        case .balanced: .accurate
        case .quality: .optimized
        }
    }

    /// The x265 preset this choice asks for.
    var hevcPreset: String {
        switch self {
        case .speed: "ultrafast"
        case .balanced: "fast"
        case .quality: "slow"
        }
    }
}
