import MovieContainer
import MoviePlatform
import MovieCapture
#if canImport(Glibc)
import Glibc
#endif
internal import CHeif

/// Compresses video frames to HEIF (HEVC, through libheif and its x265 encoder, opened on first
/// use), with the orientation as the image's `irot` and `imir` properties.
///
/// The pixels are stored as captured; the transformative properties `orientation` asks for are
/// added to the file libheif writes (``HEIFOrientationProperties``), which readers apply in the
/// order listed: `irot` turns counter-clockwise in steps of 90°, `imir` flips (ISO/IEC 23008-12).
/// The Exif block the caller gives goes in as it is: MIAF says it should carry no orientation
/// (a reader converting to JPEG copies it, and a viewer would turn the picture twice), so give
/// it Orientation 1. Blocking: call it on a dedicated thread.
package enum HEIFEncoder {
    /// x265's speed presets the photo encoder offers, fastest first; libheif's default is `slow`.
    package static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow"]

    /// Compresses `frame` at `quality` (1–100) with `orientation` (Exif numbering) and `exif` (a
    /// TIFF structure, from its byte-order mark), with x265's `preset` (one of ``presets``).
    /// - Returns: The HEIF file's bytes.
    /// - Throws: ``PhotoError`` with ``PhotoError/Code/encodingFailed`` naming `owner`, the step
    ///   and libheif's message; the same when libheif is missing, naming the package.
    package static func encode(_ frame: VideoFrame, quality: Int, orientation: VideoOrientation, exif: [UInt8],
                               preset: String = "slow", owner: String) throws(PhotoError) -> [UInt8] {
        func failure(_ step: String, _ detail: String) -> PhotoError {
            PhotoError(.encodingFailed, "\(owner): \(step) a \(frame.width)x\(frame.height) frame as HEIF with libheif failed: \(detail)")
        }
        if let missing = SystemLibrary.heif.load() { throw failure("compressing", missing) }
        guard let context = heif_context_alloc() else { throw failure("compressing", "no context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "finding an HEVC encoder for", failure)
        guard let encoder else { throw failure("finding an HEVC encoder for", "none") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(quality)), "setting the quality of", failure)
        try check(heif_encoder_set_parameter_string(encoder, "preset", preset), "setting x265's preset \(preset) for", failure)
        let image = try makeImage(frame, failure)
        defer { heif_image_release(image) }
        guard let options = heif_encoding_options_alloc() else { throw failure("compressing", "no encoding options") }
        defer { heif_encoding_options_free(options) }
        // libheif's own image_orientation turns the pixels to match the irot/imir it writes; the
        // properties are added afterwards instead (HEIFOrientationProperties).
        options.pointee.image_orientation = heif_orientation_normal
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, options, &handle), "compressing", failure)
        defer { if let handle { heif_image_handle_release(handle) } }
        let added = exif.withUnsafeBytes { heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count)) }
        try check(added, "adding Exif to", failure)
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        try check(CHeif_writeToMemory(context, &data, &size), "writing", failure)
        defer { free(data) }
        guard let data else { throw failure("writing", "no bytes") }
        do {
            return try HEIFOrientationProperties.adding(orientation, to: Array(UnsafeBufferPointer(start: data, count: size)))
        } catch {
            throw failure("adding the orientation to", error.reason)
        }
    }

    /// A libheif image with the frame's planes copied in, 4:2:0 8-bit YCbCr.
    private static func makeImage(_ frame: VideoFrame, _ failure: (String, String) -> PhotoError) throws(PhotoError) -> OpaquePointer {
        var image: OpaquePointer?
        try check(heif_image_create(Int32(frame.width), Int32(frame.height), heif_colorspace_YCbCr, heif_chroma_420, &image),
                  "creating an image for", failure)
        guard let image else { throw failure("creating an image for", "none") }
        let chromaWidth = (frame.width + 1) / 2, chromaHeight = (frame.height + 1) / 2
        let planes: [(heif_channel, Int, Int)] = [(heif_channel_Y, frame.width, frame.height),
                                                  (heif_channel_Cb, chromaWidth, chromaHeight),
                                                  (heif_channel_Cr, chromaWidth, chromaHeight)]
        for (channel, width, height) in planes {
            let added = heif_image_add_plane(image, channel, Int32(width), Int32(height), 8)
            guard added.code == heif_error_Ok else {
                heif_image_release(image)
                throw failure("adding a plane to", message(added))
            }
        }
        for (index, (channel, width, height)) in planes.enumerated() {
            var stride: Int32 = 0
            guard let destination = heif_image_get_plane(image, channel, &stride) else { continue }
            copy(frame, plane: index, into: destination, stride: Int(stride), width: width, height: height)
        }
        return image
    }

    /// Copies plane `index` (0 luma, 1 Cb, 2 Cr) of an I420 or NV12 frame.
    private static func copy(_ frame: VideoFrame, plane index: Int, into destination: UnsafeMutablePointer<UInt8>,
                             stride: Int, width: Int, height: Int) {
        switch (frame.pixelFormat, index) {
        case (.i420, _), (.nv12, 0):
            let source = frame.planes[index]
            for row in 0..<height {
                (destination + row * stride).update(from: (source.baseAddress + row * source.bytesPerRow).assumingMemoryBound(to: UInt8.self),
                                                    count: width)
            }
        case (.nv12, _):
            let source = frame.planes[1]
            for row in 0..<height {
                let line = source.baseAddress + row * source.bytesPerRow
                for column in 0..<width {
                    destination[row * stride + column] = line.load(fromByteOffset: 2 * column + index - 1, as: UInt8.self)
                }
            }
        }
    }

    private static func check(_ error: heif_error, _ step: String, _ failure: (String, String) -> PhotoError) throws(PhotoError) {
        guard error.code == heif_error_Ok else { throw failure(step, message(error)) }
    }

    private static func message(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
    }
}
