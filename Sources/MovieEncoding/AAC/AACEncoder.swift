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
    /// Whether ``flush(deliver:)`` has drained the encoder, which then takes no more audio.
    private var flushed = false
    private var nextTimestamp: Int64 = 0

    /// Opens an encoder for PCM in `input` at `bitRate` bits per second.
    /// - Throws: ``EncoderError`` naming the setting refused or the library missing.
    package init(input: PCMFormat, bitRate: Int) throws(EncoderError) {
        self.input = input
        frameSize = AACFormat.framesPerPacket
        try Self.validate(input: input, bitRate: bitRate)
        if let failure = SystemLibrary.avcodec.load() { throw EncoderError(message: "AAC encoder: \(failure)") }
        _ = Self.logRouted
        guard let codec = avcodec_find_encoder_by_name("aac"), let context = avcodec_alloc_context3(codec) else {
            throw EncoderError(message: "AAC encoder: libavcodec has no AAC encoder")
        }
        do {
            format = try Self.open(context, codec: codec, input: input, bitRate: bitRate)
        } catch {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw error
        }
        self.context = context
        // From here `close()` releases whatever was allocated, and `deinit` calls it again.
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let frame, packet != nil else {
            close()
            throw EncoderError(message: "AAC encoder: out of memory allocating an audio frame and packet")
        }
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(input.sampleRate)
        _ = av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        let failure = av_frame_get_buffer(frame, 0)
        guard failure >= 0 else {
            close()
            throw EncoderError(message: "AAC encoder: allocating an audio frame failed (\(Self.describe(failure)))")
        }
    }

    /// Configures and opens `context`, and returns the format the track describes.
    private static func open(_ context: UnsafeMutablePointer<AVCodecContext>, codec: UnsafePointer<AVCodec>,
                             input: PCMFormat, bitRate: Int) throws(EncoderError) -> AACFormat {
        context.pointee.sample_rate = Int32(input.sampleRate)
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        _ = av_channel_layout_from_mask(&context.pointee.ch_layout, CAVCodec_aac_layout_mask(Int32(input.channelCount)))
        context.pointee.bit_rate = Int64(bitRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(input.sampleRate))
        context.pointee.flags |= CAVCodec_FLAG_GLOBAL_HEADER()
        let failure = avcodec_open2(context, codec, nil)
        guard failure >= 0 else {
            throw EncoderError(message: "AAC encoder: libavcodec could not open an encoder for \(input) at \(bitRate / 1000) kbit/s (\(describe(failure)))")
        }
        guard context.pointee.frame_size == Int32(AACFormat.framesPerPacket) else {
            throw EncoderError(message: "AAC encoder: libavcodec's encoder takes \(context.pointee.frame_size) frames per access unit, not 1024")
        }
        let config = Array(UnsafeBufferPointer(start: context.pointee.extradata, count: Int(context.pointee.extradata_size)))
        do {
            return try AACFormat(audioSpecificConfig: config, primingFrames: UInt32(max(0, context.pointee.initial_padding)),
                                 averageBitRate: UInt32(bitRate))
        } catch {
            throw EncoderError(message: "AAC encoder: libavcodec's AudioSpecificConfig did not parse: \(error.message)")
        }
    }

    deinit { close() }

    /// The default bit rate for `channelCount` channels: 64 kbit/s per channel, as 128 kbit/s for
    /// stereo is what AVFoundation and most recorders use for AAC-LC.
    package static func defaultBitRate(channelCount: Int) -> Int { 64_000 * max(1, channelCount) }

    /// Checks what libavcodec would refuse, or accept only by changing it, before opening it.
    private static func validate(input: PCMFormat, bitRate: Int) throws(EncoderError) {
        do { try input.validate() } catch { throw EncoderError(message: "AAC encoder: \(error.message)") }
        guard AACFormat.sampleRates.contains(input.sampleRate) else {
            throw EncoderError(message: "AAC encoder: \(input.sampleRate) Hz is not an AAC sample rate; use 48000, 44100, 32000, 24000, 22050, 16000 or another of \(AACFormat.sampleRates.map(String.init).joined(separator: ", "))")
        }
        guard CAVCodec_aac_layout_mask(Int32(input.channelCount)) != 0 else {
            throw EncoderError(message: "AAC encoder: \(input.channelCount) channels have no standard AAC channel configuration; use 1 to 6 or 8 channels (mono, stereo, 3.0, 4.0, 5.0, 5.1 or 7.1), or LPCM")
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
        guard let frame, !flushed else {
            throw EncoderError(message: "AAC encoder: encoding after the encoder was \(flushed ? "flushed" : "closed"); open a new one")
        }
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
    /// Later calls do nothing.
    package func flush(deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let frame, !flushed else { return }
        flushed = true
        if pendingFrames > 0 {
            frame.pointee.nb_samples = Int32(pendingFrames)
            try send(frame: frame, deliver: deliver)
            frame.pointee.nb_samples = Int32(frameSize)
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
        // Draining an encoder already drained answers end of file, which is no error.
        guard sent >= 0 || (frame == nil && sent == CAVCodec_AVERROR_EOF()) else {
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

    /// Sends libavcodec's messages (information and more important) to
    /// ``MovieRecorderLogging`` (component `ffmpeg`), which passes on those at the level the
    /// application asked for, instead of FFmpeg's default of printing them. FFmpeg has one log
    /// callback per process: this takes it over when the first encoder opens.
    private static let logRouted: Void = CAVCodec_route_log { level, message in
        let mapped: LogLevel = level <= AV_LOG_ERROR ? .error : level <= AV_LOG_WARNING ? .warning : .info
        MovieRecorderLogging.log(mapped, "ffmpeg", message.map { String(cString: $0) } ?? "")
    }
}
