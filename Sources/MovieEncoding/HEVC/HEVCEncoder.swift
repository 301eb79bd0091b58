import MovieContainer
import MoviePlatform
import MovieCapture
internal import CX265

/// An HEVC encoder over libx265 that returns access units ready for an 'hvc1' track: 4-byte
/// NAL lengths (`annexb` off), the VPS, SPS and PPS kept for `hvcC` and never repeated in the
/// stream, closed GOPs so every keyframe is an IDR a fragment or segment can start with.
///
/// Used from one thread at a time (the recording's encoding thread).
package final class HEVCEncoder: VideoEncoder, @unchecked Sendable {
    // @unchecked: the x265 handles are used by one thread at a time, handed over before use.
    private let api: UnsafePointer<x265_api>
    private var param: UnsafeMutablePointer<x265_param>?
    private var handle: OpaquePointer?
    private let picture: UnsafeMutablePointer<x265_picture>
    /// The stream's parameter sets, for `hvcC`.
    package let configuration: HEVCDecoderConfiguration
    package let format: VideoFormat
    /// x265's version-and-options SEI (length-prefixed), put in front of the first access unit
    /// as x264's is, so any reader can tell how the stream was encoded.
    private var leadingSEI: [UInt8]?

    /// Opens an encoder for frames of `format` stamped in ticks of `timescale`.
    /// - Throws: ``EncoderError`` naming the setting libx265 refused, or the package to install.
    package init(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings) throws {
        self.format = format
        guard format.width > 0, format.height > 0, format.width % 2 == 0, format.height % 2 == 0 else {
            throw EncoderError(message: "HEVC encoder: \(format.width)x\(format.height) cannot be encoded as 4:2:0; width and height must be even")
        }
        if let failure = SystemLibrary.x265.load() ?? (format.pixelFormat == .nv12 ? PictureScaler.load() : nil) {
            throw EncoderError(message: "HEVC encoder: \(failure)")
        }
        guard let api = CX265_api() else {
            throw EncoderError(message: "HEVC encoder: libx265 has no 8-bit encoder; install Debian's libx265-\(CX265_build()) package")
        }
        self.api = api
        guard let param = api.pointee.param_alloc(), let picture = api.pointee.picture_alloc() else {
            throw EncoderError(message: "HEVC encoder: libx265 could not allocate its parameters")
        }
        // x265_param_alloc leaves the memory as malloc gave it; x265_param_free reads its zones.
        api.pointee.param_default(param)
        do {
            try Self.configure(param, api: api, format: format, settings: settings)
            guard let opened = api.pointee.encoder_open(param) else {
                throw EncoderError(message: "HEVC encoder: libx265 could not open an encoder for \(format) with these settings")
            }
            do {
                (configuration, leadingSEI) = try Self.headers(of: opened, api: api)
            } catch {
                api.pointee.encoder_close(opened)
                throw error
            }
            handle = opened
        } catch {
            api.pointee.param_free(param)
            api.pointee.picture_free(picture)
            throw error
        }
        self.param = param
        self.picture = picture
        api.pointee.picture_init(param, picture)
        _ = timescale  // x265 passes timestamps through in whatever unit they come
    }

    deinit {
        // Only a safety net: the recording closes the encoder when it ends.
        release()
        api.pointee.picture_free(picture)
    }

    /// Releases libx265's encoder.
    package func close() { release() }

    private func release() {
        if let handle { api.pointee.encoder_close(handle) }
        handle = nil
        if let param { api.pointee.param_free(param) }
        param = nil
    }

    package func trackFormat(timescale: UInt32, orientation: VideoOrientation, nominalFrameDuration: UInt32?,
                             color: ColorDescription?) -> VideoTrackFormat {
        VideoTrackFormat(hevc: configuration, timescale: timescale, orientation: orientation,
                         nominalFrameDuration: nominalFrameDuration, color: color)
    }

    /// Encodes a frame stamped `presentationTime` (track ticks, increasing); returns the access
    /// unit x265 finished, if any (with B-frames, lookahead and frame threads, output lags input).
    package func encode(_ frame: VideoFrame, presentationTime: Int64, forceKeyframe: Bool = false) throws -> EncodedVideoSample? {
        guard let handle else { throw EncoderError(message: "HEVC encoder: encoding after the encoder was closed") }
        let planar = frame.pixelFormat == .nv12 ? PictureScaler.i420(frame) : frame
        let planes = planar.planes
        func pointer(_ i: Int) -> UnsafeMutableRawPointer? { UnsafeMutableRawPointer(mutating: planes[i].baseAddress) }
        picture.pointee.planes = (pointer(0), pointer(1), pointer(2))
        picture.pointee.stride = (Int32(planes[0].bytesPerRow), Int32(planes[1].bytesPerRow), Int32(planes[2].bytesPerRow))
        picture.pointee.pts = presentationTime
        picture.pointee.sliceType = forceKeyframe ? Int32(X265_TYPE_IDR) : Int32(X265_TYPE_AUTO)
        // x265 copies the picture into its own frame pool during the call.
        return try withExtendedLifetime(planar) { try run(handle, picture) }
    }

    /// Drains the frames x265 still holds (B-frame reordering, lookahead, frame threads).
    package func flush() throws -> [EncodedVideoSample] {
        guard let handle else { return [] }
        var samples: [EncodedVideoSample] = []
        while let sample = try run(handle, nil) { samples.append(sample) }
        return samples
    }

    private func run(_ handle: OpaquePointer, _ input: UnsafeMutablePointer<x265_picture>?) throws -> EncodedVideoSample? {
        var nals: UnsafeMutablePointer<x265_nal>?
        var count: UInt32 = 0
        var output = x265_picture()
        let result = api.pointee.encoder_encode(handle, &nals, &count, input, &output)
        guard result >= 0 else { throw EncoderError(message: "HEVC encoder: libx265 failed to encode a frame (\(result))") }
        guard result > 0, count > 0, let nals else { return nil }
        var data = leadingSEI ?? []
        leadingSEI = nil
        var isKeyframe = false
        for i in 0..<Int(count) {
            let nal = nals[i]
            // IRAP pictures (BLA, IDR, CRA) are the random access points.
            if nal.type < 64, AnnexBStream.Codec.hevc.isSync(UInt8(nal.type)) { isKeyframe = true }
            data.append(contentsOf: UnsafeBufferPointer(start: nal.payload, count: Int(nal.sizeBytes)))
        }
        return EncodedVideoSample(data: data, presentationTime: output.pts, decodeTime: output.dts, isKeyframe: isKeyframe)
    }
}

extension HEVCEncoder {
    /// Fills `param` from the preset and tune, then the size, rate, GOP, rate control, colour,
    /// the options by name and the profile, in that order.
    static func configure(_ param: UnsafeMutablePointer<x265_param>, api: UnsafePointer<x265_api>, format: VideoFormat,
                          settings: VideoEncoderSettings) throws {
        let tunes = settings.tune?.split(separator: ",").map(String.init) ?? []
        guard CX265_is_known_name(0, settings.preset) != 0, tunes.allSatisfy({ CX265_is_known_name(1, $0) != 0 }), tunes.count <= 1,
              api.pointee.param_default_preset(param, settings.preset, settings.tune) == 0 else {
            throw EncoderError(message: "HEVC encoder: preset '\(settings.preset)'\(settings.tune.map { " with tune '\($0)'" } ?? "") is not known to x265; use ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow or placebo, and one tune of psnr, ssim, grain, zerolatency, fastdecode or animation")
        }
        let p = param
        p.pointee.logLevel = MovieRecorderLogging.minimumLevel == nil ? X265_LOG_NONE : X265_LOG_ERROR
        p.pointee.sourceWidth = Int32(format.width)
        p.pointee.sourceHeight = Int32(format.height)
        p.pointee.internalCsp = X265_CSP_I420
        p.pointee.fpsNum = UInt32(format.frameRate.frames)
        p.pointee.fpsDenom = UInt32(format.frameRate.seconds)
        p.pointee.bAnnexB = 0
        p.pointee.bRepeatHeaders = 0
        p.pointee.bOpenGOP = 0
        try parse(p, api: api, "sar", "1")  // square pixels, as the x265 CLI and FFmpeg state them
        p.pointee.keyframeMax = Int32(settings.keyframeInterval(at: format.frameRate))
        if let b = settings.maxBFrames { p.pointee.bframes = Int32(b) }
        if settings.threads > 0 { try parse(p, api: api, "pools", "\(settings.threads)") }
        switch settings.effectiveRateControl {
        case .constantQuality(let crf):
            guard crf >= 0, crf <= 51 else { throw EncoderError(message: "HEVC encoder: CRF \(crf) is outside 0...51") }
            p.pointee.rc.rateControlMode = Int32(X265_RC_CRF.rawValue)
            p.pointee.rc.rfConstant = crf
        case .bitrate(let kbps, let maxKbps, let buffer):
            guard kbps > 0 else { throw EncoderError(message: "HEVC encoder: bitrate \(kbps) kbit/s must be positive") }
            p.pointee.rc.rateControlMode = Int32(X265_RC_ABR.rawValue)
            p.pointee.rc.bitrate = Int32(kbps)
            if let maxKbps { p.pointee.rc.vbvMaxBitrate = Int32(maxKbps) }
            if let buffer { p.pointee.rc.vbvBufferSize = Int32(buffer) }
        }
        if let color = settings.streamColor(source: format.color) {
            p.pointee.vui.bEnableVideoSignalTypePresentFlag = 1
            p.pointee.vui.bEnableColorDescriptionPresentFlag = 1
            p.pointee.vui.colorPrimaries = Int32(color.primaries)
            p.pointee.vui.transferCharacteristics = Int32(color.transferFunction)
            p.pointee.vui.matrixCoeffs = Int32(color.matrix)
            p.pointee.vui.bEnableVideoFullRangeFlag = color.isFullRange ? 1 : 0
        }
        for (name, value) in settings.options.sorted(by: { $0.key < $1.key }) { try parse(p, api: api, name, value) }
        let profile = settings.effectiveProfile
        guard ["main", "mainstillpicture", "msp", "main-intra"].contains(profile.lowercased()),
              api.pointee.param_apply_profile(p, profile) == 0 else {
            throw EncoderError(message: "HEVC encoder: profile '\(profile)' is unknown or cannot encode 8-bit 4:2:0 with these settings; use main or mainstillpicture")
        }
    }

    /// Sets one x265 option by its command-line name.
    private static func parse(_ param: UnsafeMutablePointer<x265_param>, api: UnsafePointer<x265_api>, _ name: String, _ value: String) throws {
        switch api.pointee.param_parse(param, name, value) {
        case 0: return
        case X265_PARAM_BAD_NAME: throw EncoderError(message: "HEVC encoder: x265 has no option '\(name)'")
        default: throw EncoderError(message: "HEVC encoder: x265 option '\(name)' does not take the value '\(value)'")
        }
    }

    /// The parameter sets for `hvcC` and x265's options SEI, from `x265_encoder_headers`.
    static func headers(of handle: OpaquePointer, api: UnsafePointer<x265_api>) throws -> (HEVCDecoderConfiguration, [UInt8]?) {
        var nals: UnsafeMutablePointer<x265_nal>?
        var count: UInt32 = 0
        guard api.pointee.encoder_headers(handle, &nals, &count) >= 0, let nals else {
            throw EncoderError(message: "HEVC encoder: libx265 produced no parameter sets")
        }
        var parameterSets: [[UInt8]] = [], sei: [UInt8]?
        for i in 0..<Int(count) {
            let nal = nals[i]
            // With annexb off each payload starts with its 4-byte length.
            let whole = UnsafeBufferPointer(start: nal.payload, count: Int(nal.sizeBytes))
            if (32...34).contains(nal.type) { parameterSets.append(Array(whole.dropFirst(4))) }
            if nal.type == 39 { sei = Array(whole) }
        }
        do {
            return (try HEVCDecoderConfiguration(parameterSets: parameterSets), sei)
        } catch {
            throw EncoderError(message: "HEVC encoder: libx265's parameter sets did not parse: \(error.message)")
        }
    }
}
