import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// What a captured photo produced.
public struct PhotoResult: Hashable, Sendable, CustomStringConvertible {
    /// The ``PhotoSettings/uniqueID`` of the request.
    public var uniqueID: Int64 = 0
    /// The file's path.
    public var path: String
    /// How the photo was compressed: JPEG, or HEVC in a HEIF file.
    public var codec: PhotoCodec = .jpeg
    /// The stored picture's width in pixels: the frame's, never swapped by the orientation (a
    /// proxy's reduced size for a proxy).
    public var width: Int
    /// The stored picture's height in pixels.
    public var height: Int
    /// The orientation written: a JPEG's Exif `Orientation` tag, a HEIF image's `irot` and
    /// `imir` properties.
    public var orientation: VideoOrientation
    /// The file's size in bytes.
    public var byteCount: Int
    /// A Boolean value that indicates whether the file is a deferred photo's proxy: a reduced
    /// picture with the final metadata, replaced by the full photo when
    /// ``PhotoOutput/Event/didFinishDeferredPhoto(_:)`` reports it.
    public var isProxy = false
    /// The capture time of the frame taken, on `MonotonicClock` in nanoseconds (for a camera,
    /// the driver's timestamp).
    public var frameTimestamp: UInt64 = 0
    /// The source's number of the frame taken (for V4L2, the driver's sequence number).
    public var frameSequenceNumber: UInt64 = 0
    /// The frame's capture time minus the moment `capturePhoto` was called: negative when the
    /// frame was captured before the request, as zero shutter lag takes it.
    public var shutterLag: Duration = .zero
    /// A Boolean value that indicates whether the frame came from the frames kept for zero
    /// shutter lag, rather than being the next frame after the request.
    public var isZeroShutterLag = false
    /// The prioritization the photo was encoded with: the settings', or
    /// ``PhotoQualityPrioritization/speed`` when fast capture prioritization stepped in.
    public var qualityPrioritization: PhotoQualityPrioritization = .balanced
    /// The embedded thumbnail's size in bytes, or 0 for none.
    public var thumbnailByteCount = 0

    /// A textual representation of the result: path, size, codec, byte count, orientation with
    /// its Exif value (for HEIF, the value its `irot` and `imir` stand for) and shutter lag.
    public var description: String {
        let lag = Double(shutterLag.components.seconds) * 1000 + Double(shutterLag.components.attoseconds) / 1e15
        let lagText = (lag * 10).rounded() / 10
        return "\(path): \(width)x\(height) \(codec == .jpeg ? "JPEG" : "HEIF")\(isProxy ? " proxy" : ""), \(byteCount) bytes, "
            + "orientation \(orientation) (Exif \(orientation.exifOrientation)), frame \(frameSequenceNumber) at \(lagText) ms from the request"
            + (isZeroShutterLag ? " (zero shutter lag)" : "") + (thumbnailByteCount > 0 ? ", thumbnail \(thumbnailByteCount) bytes" : "")
    }
}
