import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif

/// One photo after its frame was chosen: everything needed to encode and write it, on a
/// dedicated thread. Blocking.
struct PhotoJob: Sendable {
    var frame: VideoFrame
    var settings: PhotoSettings
    var prioritization: PhotoQualityPrioritization
    var orientation: VideoOrientation
    var make: String?
    var model: String?
    var path: String
    var overwrite: Bool
    /// When `capturePhoto` was called (monotonic nanoseconds).
    var moment: UInt64
    var fromRing: Bool
    var unixSeconds: Int

    /// The longer side of a deferred photo's proxy, at most.
    static let proxySide = 640

    /// Encodes the full photo and puts it at the path (replacing a proxy when `replacing`).
    func writeFinal(replacing: Bool) throws(PhotoError) -> PhotoResult {
        let (bytes, thumbnail) = try encode(frame, quality: prioritization.effectiveQuality(settings.quality),
                                            thumbnail: settings.embeddedThumbnailPhotoFormat)
        try publish(bytes, replacing: replacing)
        var result = result(for: frame, byteCount: bytes.count)
        result.thumbnailByteCount = thumbnail
        return result
    }

    /// Encodes a reduced picture with the final metadata and puts it at the path.
    func writeProxy() throws(PhotoError) -> PhotoResult {
        let small = PictureDownscaler.downscaled(frame, toFit: Self.proxySide)
        let (bytes, _) = try encode(small, quality: min(settings.quality, 80), thumbnail: nil, preset: "ultrafast")
        try publish(bytes, replacing: overwrite)
        var result = result(for: small, byteCount: bytes.count)
        result.isProxy = true
        return result
    }

    private func result(for picture: VideoFrame, byteCount: Int) -> PhotoResult {
        var result = PhotoResult(path: path, width: picture.width, height: picture.height, orientation: orientation,
                                 byteCount: byteCount)
        result.uniqueID = settings.uniqueID
        result.codec = settings.codec
        result.frameTimestamp = frame.timestamp
        result.frameSequenceNumber = frame.sequenceNumber
        result.shutterLag = .nanoseconds(Int64(bitPattern: frame.timestamp &- moment))
        result.isZeroShutterLag = fromRing
        result.qualityPrioritization = prioritization
        return result
    }

    /// The file's bytes for `picture` and the size of its embedded thumbnail.
    private func encode(_ picture: VideoFrame, quality: Int, thumbnail: PhotoThumbnailFormat?,
                        preset: String? = nil) throws(PhotoError) -> ([UInt8], Int) {
        let time = ExifTime(unixSeconds: unixSeconds)
        var exif = ExifMetadata(orientation: orientation.exifOrientation, make: make, model: model,
                                dateTimeOriginal: time.dateTime, offsetTimeOriginal: time.offset,
                                pixelWidth: picture.width, pixelHeight: picture.height)
        if settings.codec == .hevc {
            // The orientation goes into irot/imir; the Exif inside says 1 (MIAF 7.3.10.1).
            exif.orientation = 1
            let bytes = try HEIFEncoder.encode(picture, quality: quality, orientation: orientation, exif: exif.tiffBytes(),
                                               preset: preset ?? prioritization.hevcPreset, owner: "PhotoOutput")
            return (bytes, 0)
        }
        if let thumbnail {
            exif.thumbnail = try ExifMetadata.thumbnailJPEG(for: picture, longestSide: thumbnail.longestSide,
                                                             quality: thumbnail.quality, owner: "PhotoOutput")
        }
        let effort: JPEGEncoder.Effort = preset == nil ? prioritization.jpegEffort : .fast
        let jpeg = try JPEGEncoder.encode(picture, quality: quality, effort: effort, owner: "PhotoOutput")
        guard let segment = exif.app1Segment() else {
            throw PhotoError(.encodingFailed, "PhotoOutput: the Exif metadata does not fit in a 64 KB APP1 segment; shorten the make and model, or make the thumbnail smaller")
        }
        guard let bytes = JPEGHeader.insertingFirstSegment(segment, replacingJFIFIn: jpeg) else {
            throw PhotoError(.encodingFailed, "PhotoOutput: libturbojpeg's output is not a JPEG stream (no SOI, or a header segment runs past its end)")
        }
        return (bytes, exif.thumbnail?.count ?? 0)
    }

    private func publish(_ bytes: [UInt8], replacing: Bool) throws(PhotoError) {
        do {
            try DurableFilePublisher.publish(bytes, at: path, replacing: replacing)
        } catch let error as FileError where error.code == .alreadyExists {
            throw PhotoOutput.fileExists(path)
        } catch {
            throw PhotoError(.fileError, "PhotoOutput: writing the photo: \(error)")
        }
    }
}
