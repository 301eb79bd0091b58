import MoviePlatform
internal import CTurboJPEG
internal import CYUV

/// Decodes Motion-JPEG pictures straight into I420 planes with TurboJPEG: the luma plane and
/// 4:2:0 chroma go where the frame's planes are; other chroma layouts (4:2:2 as webcams send,
/// 4:4:4, 4:4:0, 4:1:1) are decoded beside it and resampled to 4:2:0 by libyuv; a grey JPEG gets
/// neutral chroma. A layout TurboJPEG cannot name (such as every component at 2×2) is decoded to
/// RGB and converted with JPEG's own full-range BT.601 matrix, so every picture of the stream
/// keeps the same range.
///
/// JPEG samples are full range (JFIF): the pictures keep them and the movie says so
/// (``CameraPictureConverter/color``).
package final class JPEGPlaneDecoder {
    private let handle: tjhandle
    private let width: Int
    private let height: Int
    /// Chroma planes in the JPEG's own sampling, or an RGB picture; grown when first needed.
    private var scratch: UnsafeMutableRawPointer?
    private var scratchSize = 0
    /// The last warning TurboJPEG gave for a picture it still decoded (extraneous bytes and the like).
    package private(set) var lastWarning: String?

    package init(width: Int, height: Int, device: String) throws(DeviceError) {
        if let failure = SystemLibrary.turboJPEG.load() {
            throw DeviceError(.libraryMissing, device: device, step: "starting the MJPEG decoder", detail: failure)
        }
        guard let handle = tjInitDecompress() else {
            throw DeviceError(.failed, device: device, step: "starting the MJPEG decoder", detail: "tjInitDecompress failed")
        }
        self.handle = handle
        self.width = width
        self.height = height
    }

    deinit {
        tjDestroy(handle)
        scratch?.deallocate()
    }

    /// Decodes one JPEG into `destination`.
    package func decode(_ jpeg: UnsafeRawBufferPointer, into destination: I420Destination) -> ConversionOutcome {
        guard let base = jpeg.baseAddress, let length = Self.completeLength(of: jpeg) else {
            return .corrupt("the JPEG is cut short (no start or end-of-image marker)")
        }
        var w: Int32 = 0, h: Int32 = 0, sampling: Int32 = 0, colorspace: Int32 = 0
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let header = tjDecompressHeader3(handle, bytes, UInt(length), &w, &h, &sampling, &colorspace)
        // TurboJPEG fills in the size before it complains about a layout it cannot name; a
        // picture of another size would be scaled to fit by the RGB path, so it is refused here.
        guard w > 0, h > 0 else { return .corrupt("TurboJPEG cannot read its header: \(String(cString: tjGetErrorStr2(handle)))") }
        guard Int(w) == width, Int(h) == height else {
            return .corrupt("the JPEG is \(w)x\(h), not the stream's \(width)x\(height)")
        }
        guard header == 0, colorspace == TJCS_YCbCr.rawValue || colorspace == TJCS_GRAY.rawValue else {
            // No name for the layout (or not YCbCr): through RGB, if TurboJPEG can read it at all.
            return decodeThroughRGB(bytes, length: length, into: destination)
        }
        if sampling == TJSAMP_420.rawValue {
            return finish(CTurboJPEG_decompressToPlanes(handle, bytes, UInt(length), destination.y, Int32(width),
                                                        destination.u, Int32(destination.chromaWidth), destination.v,
                                                        Int32(destination.chromaWidth), Int32(width), Int32(height)))
        }
        if sampling == TJSAMP_GRAY.rawValue {
            let outcome = finish(CTurboJPEG_decompressToPlanes(handle, bytes, UInt(length), destination.y, Int32(width),
                                                               nil, 0, nil, 0, Int32(width), Int32(height)))
            SetPlane(destination.u, Int32(destination.chromaWidth), Int32(destination.chromaWidth), Int32(destination.chromaHeight), 128)
            SetPlane(destination.v, Int32(destination.chromaWidth), Int32(destination.chromaWidth), Int32(destination.chromaHeight), 128)
            return outcome
        }
        return decodeResampling(bytes, length: length, sampling: sampling, into: destination)
    }

    /// Luma straight into the frame, chroma beside it, then each chroma plane averaged (libyuv's
    /// box filter) to 4:2:0.
    private func decodeResampling(_ jpeg: UnsafePointer<UInt8>, length: Int, sampling: Int32,
                                  into destination: I420Destination) -> ConversionOutcome {
        let cw = Int(tjPlaneWidth(1, Int32(width), sampling)), ch = Int(tjPlaneHeight(1, Int32(height), sampling))
        guard cw > 0, ch > 0 else { return .corrupt("TurboJPEG gave no chroma plane size for sampling \(sampling)") }
        let u = scratchBytes(2 * cw * ch), v = u + cw * ch
        let outcome = finish(CTurboJPEG_decompressToPlanes(handle, jpeg, UInt(length), destination.y, Int32(width),
                                                           u, Int32(cw), v, Int32(cw), Int32(width), Int32(height)))
        guard outcome == .converted else { return outcome }
        for (source, target) in [(u, destination.u), (v, destination.v)] {
            ScalePlane(source, Int32(cw), Int32(cw), Int32(ch), target, Int32(destination.chromaWidth),
                       Int32(destination.chromaWidth), Int32(destination.chromaHeight), kFilterBox)
        }
        return .converted
    }

    /// A JPEG whose layout TurboJPEG cannot decode to planes: RGB, then full-range BT.601 I420
    /// (libyuv's `RAWToJ420`, `RAW` being R, G, B in memory).
    private func decodeThroughRGB(_ jpeg: UnsafePointer<UInt8>, length: Int, into destination: I420Destination) -> ConversionOutcome {
        let rgb = scratchBytes(width * height * 3)
        let outcome = finish(tjDecompress2(handle, jpeg, UInt(length), rgb, Int32(width), Int32(width * 3), Int32(height),
                                           TJPF_RGB.rawValue, TJFLAG_FASTDCT))
        guard outcome == .converted else { return outcome }
        RAWToJ420(rgb, Int32(width * 3), destination.y, Int32(width), destination.u, Int32(destination.chromaWidth),
                  destination.v, Int32(destination.chromaWidth), Int32(width), Int32(height))
        return .converted
    }

    /// A decode's result. Errors, and warnings about missing or damaged data (libjpeg then fills
    /// the rest of the picture with grey), make a corrupt picture; the one warning webcams cause
    /// all the time on whole pictures, extraneous bytes before the end-of-image marker, passes.
    /// Before any other marker (a restart marker after damaged data) it does not. TurboJPEG gives
    /// warnings as text only, and only the first: libjpeg's message (JWRN_EXTRANEOUS_DATA) tells
    /// them apart.
    private func finish(_ status: Int32) -> ConversionOutcome {
        guard status != 0 else { return .converted }
        let message = String(cString: tjGetErrorStr2(handle))
        if tjGetErrorCode(handle) == TJERR_WARNING.rawValue, message.contains("extraneous bytes before marker 0xd9") {
            lastWarning = message
            return .converted
        }
        return .corrupt("TurboJPEG: \(message)")
    }

    private func scratchBytes(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if count > scratchSize {
            scratch?.deallocate()
            scratch = .allocate(byteCount: count, alignment: 64)
            scratchSize = count
        }
        return scratch!.assumingMemoryBound(to: UInt8.self)
    }

    /// The picture size a JPEG's header gives, or `nil` when TurboJPEG cannot read it.
    /// - Throws: ``DeviceError`` with `libraryMissing` when TurboJPEG is not installed.
    package static func size(of jpeg: [UInt8], device: String) throws(DeviceError) -> (width: Int, height: Int)? {
        if let failure = SystemLibrary.turboJPEG.load() {
            throw DeviceError(.libraryMissing, device: device, step: "reading the first JPEG", detail: failure)
        }
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var w: Int32 = 0, h: Int32 = 0, sampling: Int32 = 0, colorspace: Int32 = 0
        let status = jpeg.withUnsafeBufferPointer { tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &w, &h, &sampling, &colorspace) }
        // A layout TurboJPEG cannot name still has its size read before the complaint.
        return (status == 0 || w > 0 && h > 0) ? (Int(w), Int(h)) : nil
    }

    /// The JPEG's length up to its end-of-image marker, past any padding the driver left after it
    /// (UVC buffers often carry zeros there); `nil` when it does not start with a start-of-image
    /// marker or has no end marker (a picture cut short, which libjpeg would fill with grey).
    package static func completeLength(of jpeg: UnsafeRawBufferPointer) -> Int? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var end = jpeg.count
        while end > 2, jpeg[end - 1] == 0 { end -= 1 }
        guard end >= 4, jpeg[end - 2] == 0xFF, jpeg[end - 1] == 0xD9 else { return nil }
        return end
    }
}
