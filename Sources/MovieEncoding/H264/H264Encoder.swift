import MovieContainer
import MoviePlatform
import MovieCapture
internal import CX264

/// An H.264 encoder over libx264 that takes I420 or NV12 frames without copying them and
/// returns access units ready for a movie: 4-byte NAL lengths (`b_annexb = 0`), parameter sets
/// kept for `avcC` rather than repeated in the stream.
///
/// Used from one thread at a time (the recording's encoding thread).
package final class H264Encoder: VideoEncoder, @unchecked Sendable {
    // @unchecked: the x264 handle is used by one thread at a time, handed over before use.
    private var handle: OpaquePointer?
    /// The stream's SPS and PPS, for `avcC`.
    package let configuration: AVCDecoderConfiguration
    package let format: VideoFormat
    /// The option string x264 writes into its SEI, for logs and comparisons.
    private(set) var optionSummary = ""
    /// x264's version-and-options SEI (length-prefixed), put in front of the first access unit
    /// as ffmpeg does, so any reader can tell how the stream was encoded.
    private var leadingSEI: [UInt8]?

    /// Opens an encoder for frames of `format` stamped in ticks of `timescale`.
    /// - Throws: ``EncoderError`` naming the setting libx264 refused.
    package init(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings) throws {
        self.format = format
        guard format.width > 0, format.height > 0, format.width % 2 == 0, format.height % 2 == 0 else {
            throw EncoderError(message: "H.264 encoder: \(format.width)x\(format.height) cannot be encoded as 4:2:0; width and height must be even")
        }
        if let failure = SystemLibrary.x264.load() {
            throw EncoderError(message: "H.264 encoder: \(failure)")
        }
        var param = x264_param_t()
        guard Self.isKnown(preset: settings.preset, tune: settings.tune),
              x264_param_default_preset(&param, settings.preset, settings.tune) == 0 else {
            throw EncoderError(message: "H.264 encoder: preset '\(settings.preset)'\(settings.tune.map { " with tune '\($0)'" } ?? "") is not known to x264; use ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow or placebo, and a tune such as zerolatency, film or animation")
        }
        Self.routeLog(&param)
        param.i_width = Int32(format.width)
        param.i_height = Int32(format.height)
        param.i_csp = format.pixelFormat == .nv12 ? X264_CSP_NV12 : X264_CSP_I420
        param.i_fps_num = format.frameRate.frames
        param.i_fps_den = format.frameRate.seconds
        param.i_timebase_num = 1
        param.i_timebase_den = timescale
        param.b_vfr_input = 1
        param.b_annexb = 0
        param.b_repeat_headers = 0
        param.i_threads = Int32(settings.threads)
        param.i_keyint_max = Int32(settings.keyframeInterval(at: format.frameRate))
        if let b = settings.maxBFrames { param.i_bframe = Int32(b) }
        switch settings.effectiveRateControl {
        case .constantQuality(let crf):
            guard crf >= 0, crf <= 51 else { throw EncoderError(message: "H.264 encoder: CRF \(crf) is outside 0...51") }
            param.rc.i_rc_method = X264_RC_CRF
            param.rc.f_rf_constant = Float(crf)
        case .bitrate(let kbps, let maxKbps, let buffer):
            guard kbps > 0 else { throw EncoderError(message: "H.264 encoder: bitrate \(kbps) kbit/s must be positive") }
            param.rc.i_rc_method = X264_RC_ABR
            param.rc.i_bitrate = Int32(kbps)
            if let maxKbps { param.rc.i_vbv_max_bitrate = Int32(maxKbps) }
            if let buffer { param.rc.i_vbv_buffer_size = Int32(buffer) }
        }
        if let color = settings.streamColor(source: format.color) {
            param.vui.i_colorprim = Int32(color.primaries)
            param.vui.i_transfer = Int32(color.transferFunction)
            param.vui.i_colmatrix = Int32(color.matrix)
            param.vui.b_fullrange = color.isFullRange ? 1 : 0
        }
        for (name, value) in settings.options.sorted(by: { $0.key < $1.key }) {
            switch x264_param_parse(&param, name, value) {
            case 0: continue
            case X264_PARAM_BAD_NAME: throw EncoderError(message: "H.264 encoder: x264 has no option '\(name)'")
            default: throw EncoderError(message: "H.264 encoder: x264 option '\(name)' does not take the value '\(value)'")
            }
        }
        let profile = settings.effectiveProfile
        if CX264_is_known_name(2, profile) == 0 || x264_param_apply_profile(&param, profile) != 0 {
            throw EncoderError(message: "H.264 encoder: profile '\(profile)' is unknown or cannot encode \(format.pixelFormat.rawValue) with these settings; use baseline, main or high")
        }
        guard let opened = CX264_encoder_open(&param) else {
            throw EncoderError(message: "H.264 encoder: libx264 could not open an encoder for \(format) with these settings")
        }
        handle = opened
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        guard x264_encoder_headers(opened, &nals, &count) >= 0, let nals else {
            x264_encoder_close(opened)
            handle = nil
            throw EncoderError(message: "H.264 encoder: libx264 produced no parameter sets")
        }
        var parameterSets: [[UInt8]] = []
        for i in 0..<Int(count) {
            let nal = nals[i]
            // With b_annexb = 0 each payload starts with its 4-byte length.
            let payload = UnsafeBufferPointer(start: nal.p_payload + 4, count: Int(nal.i_payload) - 4)
            if nal.i_type == 7 || nal.i_type == 8 { parameterSets.append(Array(payload)) }
            if nal.i_type == 6 {
                optionSummary = Self.optionString(in: Array(payload))
                leadingSEI = Array(UnsafeBufferPointer(start: nal.p_payload, count: Int(nal.i_payload)))
            }
        }
        do {
            configuration = try AVCDecoderConfiguration(parameterSets: parameterSets)
        } catch {
            x264_encoder_close(opened)
            handle = nil
            throw EncoderError(message: "H.264 encoder: libx264's parameter sets did not parse: \(error.message)")
        }
    }

    package func trackFormat(timescale: UInt32, orientation: VideoOrientation, nominalFrameDuration: UInt32?,
                             color: ColorDescription?) -> VideoTrackFormat {
        VideoTrackFormat(h264: configuration, timescale: timescale, orientation: orientation,
                         nominalFrameDuration: nominalFrameDuration, color: color)
    }

    deinit {
        // Only a safety net: the recording closes the encoder when it ends.
        if let handle { x264_encoder_close(handle) }
    }

    /// Releases libx264's encoder.
    package func close() {
        if let handle { x264_encoder_close(handle) }
        handle = nil
    }

    /// Encodes a frame stamped `presentationTime` (track ticks, increasing); returns the access
    /// unit x264 finished, if any (with B-frames and lookahead, output lags input).
    package func encode(_ frame: VideoFrame, presentationTime: Int64, forceKeyframe: Bool = false) throws -> EncodedVideoSample? {
        guard let handle else { throw EncoderError(message: "H.264 encoder: encoding after the encoder was closed") }
        var picture = x264_picture_t()
        x264_picture_init(&picture)
        picture.i_pts = presentationTime
        picture.i_type = forceKeyframe ? X264_TYPE_IDR : X264_TYPE_AUTO
        picture.img.i_csp = frame.pixelFormat == .nv12 ? X264_CSP_NV12 : X264_CSP_I420
        picture.img.i_plane = Int32(frame.planes.count)
        let planes = frame.planes
        func pointer(_ i: Int) -> UnsafeMutablePointer<UInt8>? {
            i < planes.count ? UnsafeMutablePointer(mutating: planes[i].baseAddress.assumingMemoryBound(to: UInt8.self)) : nil
        }
        func stride(_ i: Int) -> Int32 { i < planes.count ? Int32(planes[i].bytesPerRow) : 0 }
        picture.img.plane = (pointer(0), pointer(1), pointer(2), nil)
        picture.img.i_stride = (stride(0), stride(1), stride(2), 0)
        // x264 copies the picture into its own frame pool during the call.
        return try withExtendedLifetime(frame) { try run(handle, &picture) }
    }

    /// Drains the frames x264 still holds (B-frame reordering, lookahead); call at the end.
    package func flush() throws -> [EncodedVideoSample] {
        guard let handle else { return [] }
        var samples: [EncodedVideoSample] = []
        while x264_encoder_delayed_frames(handle) > 0 {
            if let sample = try run(handle, nil) { samples.append(sample) }
        }
        return samples
    }

    private func run(_ handle: OpaquePointer, _ input: UnsafeMutablePointer<x264_picture_t>?) throws -> EncodedVideoSample? {
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        var output = x264_picture_t()
        let size = x264_encoder_encode(handle, &nals, &count, input, &output)
        guard size >= 0 else { throw EncoderError(message: "H.264 encoder: libx264 failed to encode a frame (\(size))") }
        guard size > 0, let nals else { return nil }
        // The payloads of one call's NAL units are contiguous in memory.
        var data = leadingSEI ?? []
        leadingSEI = nil
        data.append(contentsOf: UnsafeBufferPointer(start: nals[0].p_payload, count: Int(size)))
        return EncodedVideoSample(data: data, presentationTime: output.i_pts, decodeTime: output.i_dts,
                                  isKeyframe: output.b_keyframe != 0)
    }

    /// The text of x264's "user data unregistered" SEI (after its 16-byte UUID).
    package static func optionString(in sei: [UInt8]) -> String {
        guard let start = sei.firstIndex(of: UInt8(ascii: "x")), start + 4 < sei.count else { return "" }
        let text = sei[start...].prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }
}

extension H264Encoder {
    /// Whether x264 knows the preset (a name or its number) and every comma-separated tune,
    /// checked before x264 sees them: x264 prints its complaint about an unknown name to
    /// standard error itself.
    static func isKnown(preset: String, tune: String?) -> Bool {
        let presetKnown = CX264_is_known_name(0, preset) != 0 || (Int(preset).map { (0...9).contains($0) } ?? false)
        let tunes = tune?.split(separator: ",").map(String.init) ?? []
        return presetKnown && tunes.allSatisfy { CX264_is_known_name(1, $0) != 0 }
    }

    /// Sends libx264's messages to ``MovieRecorderLogging`` (component `x264`) at the level the
    /// application asked for, instead of x264's default of printing them.
    static func routeLog(_ param: inout x264_param_t) {
        CX264_route_log(&param) { level, message in
            let mapped: LogLevel = switch level {
            case X264_LOG_ERROR: .error
            case X264_LOG_WARNING: .warning
            case X264_LOG_INFO: .info
            default: .debug
            }
            MovieRecorderLogging.log(mapped, "x264", message.map { String(cString: $0) } ?? "")
        }
        param.i_log_level = switch MovieRecorderLogging.minimumLevel {
        case nil: X264_LOG_NONE
        case .trace?, .debug?: X264_LOG_DEBUG
        case .info?, .notice?: X264_LOG_INFO
        case .warning?: X264_LOG_WARNING
        case .error?, .critical?: X264_LOG_ERROR
        }
    }
}
