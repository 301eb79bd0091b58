import MovieContainer
import MoviePlatform
import MovieCapture
internal import CAVCodec

/// An AAC-LC encoder over FFmpeg's native AAC encoder (libavcodec, opened on first use):
/// interleaved PCM in, access units of 1024 frames out, ready for a movie (no ADTS headers).
///
/// Its ``format`` carries the `AudioSpecificConfig` for `esds` and the encoder's delay
/// (libavcodec's `initial_padding`, 1024 frames), which the track's edit list hides. Used from
/// one thread at a time (a recording's audio thread, or a muxer's encoding thread).
package final class AACEncoder: @unchecked Sendable {
    // @unchecked: the libavcodec handles are used by one thread at a time, handed over before use.
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// The layout of the PCM the encoder takes.
    package let input: PCMFormat
    /// What the track describes: configuration, bit rate and delay.
    package let format: AACFormat
    private let frameSize: Int
    /// Frames already in ``frame`` waiting for the rest of an access unit.
    private var pendingFrames = 0
    private var nextTimestamp: Int64 = 0

    /// Opens an encoder for PCM in `input` at `bitRate` bits per second.
    /// - Throws: ``EncoderError`` naming the setting refused or the library missing.
    package init(input: PCMFormat, bitRate: Int) throws(EncoderError) {
        self.input = input
        try Self.validate(input: input, bitRate: bitRate)
        if let failure = SystemLibrary.avcodec.load() { throw EncoderError(message: "AAC encoder: \(failure)") }
        Self.routeLog()
        guard let codec = avcodec_find_encoder_by_name("aac"), let context = avcodec_alloc_context3(codec) else {
            throw EncoderError(message: "AAC encoder: libavcodec has no AAC encoder")
        }
        self.context = context
        context.pointee.sample_rate = Int32(input.sampleRate)
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        av_channel_layout_default(&context.pointee.ch_layout, Int32(input.channelCount))
        context.pointee.bit_rate = Int64(bitRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(input.sampleRate))
        context.pointee.flags |= CAVCodec_FLAG_GLOBAL_HEADER()
        var failure = avcodec_open2(context, codec, nil)
        guard failure >= 0 else {
            Self.free(context: context)
            throw EncoderError(message: "AAC encoder: libavcodec could not open an encoder for \(input) at \(bitRate / 1000) kbit/s (\(Self.describe(failure)))")
        }
        frameSize = Int(context.pointee.frame_size)
        let config = Array(UnsafeBufferPointer(start: context.pointee.extradata, count: Int(context.pointee.extradata_size)))
        do {
            format = try AACFormat(audioSpecificConfig: config, primingFrames: UInt32(max(0, context.pointee.initial_padding)),
                                   averageBitRate: UInt32(bitRate))
        } catch {
            Self.free(context: context)
            throw EncoderError(message: "AAC encoder: libavcodec's AudioSpecificConfig did not parse: \(error.message)")
        }
        guard frameSize == AACFormat.framesPerPacket, let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            Self.free(context: context)
            throw EncoderError(message: "AAC encoder: libavcodec's encoder takes \(frameSize) frames per access unit, not 1024, or is out of memory")
        }
        self.frame = frame
        self.packet = packet
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(input.sampleRate)
        _ = av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        failure = av_frame_get_buffer(frame, 0)
        guard failure >= 0 else {
            close()
            throw EncoderError(message: "AAC encoder: allocating an audio frame failed (\(Self.describe(failure)))")
        }
    }

    deinit { close() }

    /// The default bit rate for `channelCount` channels: 64 kbit/s per channel, as 128 kbit/s for
    /// stereo is what AVFoundation and most recorders use for AAC-LC.
    package static func defaultBitRate(channelCount: Int) -> Int { 64_000 * max(1, channelCount) }

    /// Checks what libavcodec would refuse, or accept only by changing it, before opening it.
    private static func validate(input: PCMFormat, bitRate: Int) throws(EncoderError) {
        guard AACFormat.sampleRates.contains(input.sampleRate) else {
            throw EncoderError(message: "AAC encoder: \(input.sampleRate) Hz is not an AAC sample rate; use 48000, 44100, 32000, 24000, 22050, 16000 or another of \(AACFormat.sampleRates.map(String.init).joined(separator: ", "))")
        }
        guard (1...8).contains(input.channelCount) else {
            throw EncoderError(message: "AAC encoder: \(input.channelCount) channels cannot be encoded; AAC takes 1 to 8")
        }
        let channels = Int(input.channelCount)
        let range = (8_000 * channels)...(256_000 * channels)
        guard range.contains(bitRate) else {
            throw EncoderError(message: "AAC encoder: \(bitRate / 1000) kbit/s is outside \(range.lowerBound / 1000)–\(range.upperBound / 1000) kbit/s for \(channels) channel\(channels == 1 ? "" : "s")")
        }
    }

    /// Encodes interleaved PCM frames in ``input``'s layout (whole frames); `deliver` gets each
    /// access unit finished, borrowed for the call.
    /// - Throws: ``EncoderError`` when libavcodec fails; what `deliver` throws.
    package func encode(_ pcm: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let frame else { throw EncoderError(message: "AAC encoder: encoding after the encoder was closed") }
        let bytesPerFrame = input.bytesPerFrame
        var offset = 0
        let total = pcm.count / bytesPerFrame
        while offset < total {
            if pendingFrames == 0 {
                let failure = av_frame_make_writable(frame)
                guard failure >= 0 else { throw EncoderError(message: "AAC encoder: preparing an audio frame failed (\(Self.describe(failure)))") }
            }
            let count = min(frameSize - pendingFrames, total - offset)
            PCMConversion.deinterleave(UnsafeRawBufferPointer(rebasing: pcm[(offset * bytesPerFrame)...]), frames: count,
                                       format: input, into: frame, at: pendingFrames)
            pendingFrames += count
            offset += count
            if pendingFrames == frameSize { try send(frame: frame, deliver: deliver) }
        }
    }

    /// Encodes what is pending as a last, shorter access unit and drains the encoder.
    package func flush(deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let frame else { return }
        if pendingFrames > 0 {
            frame.pointee.nb_samples = Int32(pendingFrames)
            try send(frame: frame, deliver: deliver)
        }
        try send(frame: nil, deliver: deliver)
    }

    /// Sends `frame` (nil to drain) and delivers every access unit the encoder returns.
    private func send(frame: UnsafeMutablePointer<AVFrame>?, deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let context, let packet else { return }
        if let frame {
            frame.pointee.pts = nextTimestamp
            nextTimestamp += Int64(frame.pointee.nb_samples)
            pendingFrames = 0
        }
        let sent = avcodec_send_frame(context, frame)
        guard sent >= 0 || sent == CAVCodec_AVERROR_EOF() else {
            throw EncoderError(message: "AAC encoder: libavcodec refused a frame (\(Self.describe(sent)))")
        }
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == CAVCodec_AVERROR_EAGAIN() || received == CAVCodec_AVERROR_EOF() { return }
            guard received >= 0 else {
                throw EncoderError(message: "AAC encoder: libavcodec failed to encode (\(Self.describe(received)))")
            }
            defer { av_packet_unref(packet) }
            try deliver(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        }
    }

    /// Releases libavcodec's encoder, frame and packet.
    package func close() {
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
        if let context { Self.free(context: context) }
        context = nil
    }

    private static func free(context: UnsafeMutablePointer<AVCodecContext>) {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }

    /// libavcodec's text for an error code.
    private static func describe(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: 128)
        _ = av_strerror(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sends libavcodec's messages to ``MovieRecorderLogging`` (component `ffmpeg`) at the level
    /// the application asked for, instead of FFmpeg's default of printing them.
    private static func routeLog() {
        let level: Int32 = switch MovieRecorderLogging.minimumLevel {
        case nil: AV_LOG_QUIET
        case .trace?, .debug?: AV_LOG_VERBOSE
        case .info?, .notice?: AV_LOG_INFO
        case .warning?: AV_LOG_WARNING
        case .error?, .critical?: AV_LOG_ERROR
        }
        CAVCodec_route_log(level) { level, message in
            let mapped: LogLevel = level <= AV_LOG_ERROR ? .error : level <= AV_LOG_WARNING ? .warning : level <= AV_LOG_INFO ? .info : .debug
            MovieRecorderLogging.log(mapped, "ffmpeg", message.map { String(cString: $0) } ?? "")
        }
    }
}
