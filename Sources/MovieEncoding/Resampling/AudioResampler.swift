import MovieContainer
import MoviePlatform
internal import CSampleRate

/// Resamples interleaved signed 16-bit PCM at a ratio that may change with every buffer:
/// libsamplerate's band-limited sinc converter (`SRC_SINC_FASTEST`, opened on first use), for
/// following a microphone's clock.
///
/// Input and output rates are the same nominal rate; ``setRatio(_:)`` asks for so many output
/// frames per input frame (0.999 makes a thousandth fewer). libsamplerate moves from the last
/// ratio to a new one gradually across the next buffer's output, in double precision, so the
/// small changes a clock correction makes are no steps in the sound. Chosen over
/// libswresample, libsoxr and libspeexdsp (Benchmarks/README.md has the comparison): all four
/// keep a tone's THD+N near −89 dB at a fixed ratio, but libswresample's compensation moves the
/// ratio in steps of about a part per million, which a loop adjusting every 20 ms turns into
/// audible frequency modulation, while libsamplerate takes any ratio and ramps to it; it costs
/// 0.3% of a core for 48 kHz stereo and is BSD-licensed. Used from one thread at a time.
package final class AudioResampler: @unchecked Sendable {
    // @unchecked: the SRC_STATE is used by one thread at a time, handed over before use.
    private var state: OpaquePointer?
    package let format: PCMFormat
    /// The ratio asked for, and the one the last buffer ended at.
    private var ratio = 1.0
    private var lastRatio = 1.0
    /// Input frames given to the converter, and the input position its output has reached.
    private var fed = 0.0
    private var represented = 0.0
    private var floats: [Float] = []
    private var converted: [Float] = []

    /// Whether the resampler takes audio in `format`: signed 16-bit little-endian integers.
    package static func takes(_ format: PCMFormat) -> Bool {
        format.bitsPerChannel == 16 && !format.isFloat && !format.isBigEndian
    }

    /// Opens a converter for `format`, which ``takes(_:)``.
    /// - Throws: ``EncoderError`` naming the library missing or the step that failed.
    package init(format: PCMFormat) throws(EncoderError) {
        self.format = format
        guard Self.takes(format) else {
            throw EncoderError(message: "audio resampler: \(format.bitsPerChannel)-bit\(format.isFloat ? " float" : "") audio is not taken; signed 16-bit little-endian only")
        }
        if let failure = SystemLibrary.samplerate.load() { throw EncoderError(message: "audio resampler: \(failure)") }
        var error: Int32 = 0
        state = src_new(Int32(SRC_SINC_FASTEST), Int32(format.channelCount), &error)
        guard state != nil else {
            throw EncoderError(message: "audio resampler: libsamplerate refused \(format.channelCount) channels (\(String(cString: src_strerror(error))))")
        }
        floats = [Float](repeating: 0, count: Int(format.channelCount))  // never an empty input pointer
    }

    deinit { close() }

    /// The input frames taken but not yet resampled out (the filter's look-ahead), with the
    /// fraction of one.
    package var delay: Double { fed - represented }

    /// Makes output frames come at `ratio` per input frame, reached gradually over the next
    /// buffer.
    package func setRatio(_ ratio: Double) { self.ratio = ratio }

    /// Resamples `frameCount` interleaved frames from `input`.
    /// - Returns: The frames out, interleaved, and how many.
    package func resample(_ input: UnsafeRawBufferPointer, frameCount: Int) throws(EncoderError) -> (bytes: [UInt8], frameCount: Int) {
        let channels = Int(format.channelCount)
        let samples = frameCount * channels
        if floats.count < samples { floats = [Float](repeating: 0, count: samples) }
        floats.withUnsafeMutableBufferPointer { out in
            src_short_to_float_array(input.baseAddress?.assumingMemoryBound(to: Int16.self), out.baseAddress, Int32(samples))
        }
        return try process(frameCount: frameCount, end: false)
    }

    /// The frames held back for the filter's look-ahead, resampled with silence after them.
    package func flush() throws(EncoderError) -> (bytes: [UInt8], frameCount: Int) {
        try process(frameCount: 0, end: true)
    }

    /// Runs the converter over the first `frameCount` frames of ``floats`` until it has taken
    /// them all (or, at the end, given out all it holds).
    private func process(frameCount: Int, end: Bool) throws(EncoderError) -> (bytes: [UInt8], frameCount: Int) {
        let channels = Int(format.channelCount)
        // Room for the frames this ratio gives and a margin; libsamplerate ramps to a new ratio
        // over the room it is given, so the room is kept close to what comes out.
        let capacity = Int((Double(frameCount) * ratio).rounded(.up)) + 8
        if converted.count < capacity * channels { converted = [Float](repeating: 0, count: capacity * channels) }
        var out = [Int16]()
        out.reserveCapacity(capacity * channels)
        var taken = 0
        while true {
            let (used, produced) = try step(from: taken, count: frameCount - taken, capacity: capacity, end: end)
            taken += used
            out.append(contentsOf: [Int16](unsafeUninitializedCapacity: produced * channels) { buffer, count in
                converted.withUnsafeBufferPointer { src_float_to_short_array($0.baseAddress, buffer.baseAddress, Int32(produced * channels)) }
                count = produced * channels
            })
            if end ? produced == 0 : taken >= frameCount { break }
            if used == 0 && produced == 0 { break }
        }
        let bytes = out.withUnsafeBytes { Array($0) }
        return (bytes, out.count / channels)
    }

    /// One call of `src_process` on `count` frames from frame `offset` of ``floats``.
    private func step(from offset: Int, count: Int, capacity: Int, end: Bool) throws(EncoderError) -> (used: Int, produced: Int) {
        guard let state else { throw EncoderError(message: "audio resampler: used after close") }
        let channels = Int(format.channelCount)
        var data = SRC_DATA()
        let status = floats.withUnsafeBufferPointer { input in
            converted.withUnsafeMutableBufferPointer { output in
                data.data_in = input.baseAddress.map { $0 + offset * channels }
                data.data_out = output.baseAddress
                data.input_frames = count
                data.output_frames = capacity
                data.src_ratio = ratio
                data.end_of_input = end ? 1 : 0
                return src_process(state, &data)
            }
        }
        guard status == 0 else {
            throw EncoderError(message: "audio resampler: libsamplerate failed at ratio \(ratio) (\(String(cString: src_strerror(status))))")
        }
        let produced = Int(data.output_frames_gen)
        fed += Double(data.input_frames_used)
        represented += Double(produced) / ((lastRatio + ratio) / 2)
        lastRatio = ratio
        return (Int(data.input_frames_used), produced)
    }

    /// Releases libsamplerate's converter.
    package func close() {
        if let state { _ = src_delete(state) }
        state = nil
    }
}
