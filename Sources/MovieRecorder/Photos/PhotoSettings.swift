import Synchronization

/// The choices for one photo, like `AVCapturePhotoSettings`.
public struct PhotoSettings: Hashable, Sendable {
    /// A number no other settings made in this process have, for a
    /// ``PhotoOutputReadinessCoordinator`` to track the request and for the result to name it.
    public let uniqueID: Int64
    /// How the photo is compressed: JPEG by default, or HEVC in a HEIF file.
    public var codec: PhotoCodec
    /// The quality, from 1 (smallest file) to 100 (best picture); 90 by default.
    public var quality: Int
    /// How much the encoding may cost; ``PhotoQualityPrioritization/balanced`` by default.
    public var qualityPrioritization: PhotoQualityPrioritization
    /// A thumbnail to embed in a JPEG photo's Exif segment, or `nil` (the default) for none.
    /// HEIF photos carry none: the request is refused.
    public var embeddedThumbnailPhotoFormat: PhotoThumbnailFormat?
    /// The camera's manufacturer written as Exif `Make`, overriding ``PhotoOutput/make``.
    public var make: String?
    /// The camera's model written as Exif `Model`, overriding ``PhotoOutput/model``.
    public var model: String?

    private static let lastID = Atomic<Int64>(0)

    /// Creates settings for one photo, with a new ``uniqueID``.
    /// - Parameters:
    ///   - codec: JPEG, or HEVC in a HEIF file.
    ///   - quality: The quality, 1–100.
    ///   - qualityPrioritization: How much the encoding may cost.
    ///   - embeddedThumbnailPhotoFormat: A thumbnail for a JPEG's Exif segment, or `nil`.
    ///   - make: The Exif `Make`, or `nil` for the output's.
    ///   - model: The Exif `Model`, or `nil` for the output's.
    public init(codec: PhotoCodec = .jpeg, quality: Int = 90, qualityPrioritization: PhotoQualityPrioritization = .balanced,
                embeddedThumbnailPhotoFormat: PhotoThumbnailFormat? = nil, make: String? = nil, model: String? = nil) {
        uniqueID = Self.lastID.add(1, ordering: .relaxed).newValue
        self.codec = codec
        self.quality = quality
        self.qualityPrioritization = qualityPrioritization
        self.embeddedThumbnailPhotoFormat = embeddedThumbnailPhotoFormat
        self.make = make
        self.model = model
    }

    /// The reason these settings cannot make a photo, or `nil`.
    var problem: String? {
        let name = codec == .jpeg ? "JPEG" : "HEIF"
        if !(1...100).contains(quality) { return "\(name) quality \(quality) is out of range; use 1 to 100" }
        guard let thumbnail = embeddedThumbnailPhotoFormat else { return nil }
        if codec == .hevc { return "an embedded thumbnail is written into JPEG photos only; leave embeddedThumbnailPhotoFormat nil for HEIF" }
        if !(16...320).contains(thumbnail.longestSide) { return "a thumbnail's longest side of \(thumbnail.longestSide) is out of range; use 16 to 320" }
        if !(1...100).contains(thumbnail.quality) { return "thumbnail quality \(thumbnail.quality) is out of range; use 1 to 100" }
        return nil
    }
}
