import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The choices for one photo, like `AVCapturePhotoSettings`.
public struct PhotoSettings: Hashable, Sendable {
    /// The JPEG quality, from 1 (smallest file) to 100 (best picture); 90 by default.
    public var quality: Int
    /// The camera's manufacturer written as Exif `Make`, overriding ``PhotoOutput/make``.
    public var make: String?
    /// The camera's model written as Exif `Model`, overriding ``PhotoOutput/model``.
    public var model: String?

    /// Creates settings for one photo.
    /// - Parameters:
    ///   - quality: The JPEG quality, 1–100.
    ///   - make: The Exif `Make`, or `nil` for the output's.
    ///   - model: The Exif `Model`, or `nil` for the output's.
    public init(quality: Int = 90, make: String? = nil, model: String? = nil) {
        self.quality = quality
        self.make = make
        self.model = model
    }
}
