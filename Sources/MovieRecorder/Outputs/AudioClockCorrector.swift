import MovieContainer
import MovieCapture
import MovieEncoding

/// Makes audio from a device with a clock of its own follow the system clock that stamps the
/// video: measures the device's rate (``AudioClockEstimator``) and, when correcting, resamples
/// each buffer so that every output sample lands at its capture time.
///
/// The output runs at the nominal rate from an anchor (the first frame's capture time): output
/// sample *j* is at `anchor + j / rate`. Before each buffer the corrector compares where the
/// next output sample would land with the capture time the fitted line gives the input frame
/// it comes from (the resampler's held-back frames counted), and sets the resampling ratio to
/// the measured one, bent to take that error out over ``steeringTime``, and moves the ratio in
/// use a share of the way there (a low-pass of ``smoothingTime``): the estimate's buffer-to-buffer
/// noise must not become frequency modulation a pure tone would show. Each output buffer is
/// stamped with its first sample's place, so the timeline (``AudioTrackTimeline``), which
/// follows the sample count, never meets a jump it would have to fill.
///
/// A buffer that starts more than 100 ms from where the line expects it follows a gap (an
/// overrun's lost periods, a pause): the line goes on across it, and so does the output, which
/// the timeline fills with silence as it fills any gap over 100 ms.
struct AudioClockCorrector {
    let sampleRate: Double
    private(set) var estimator: AudioClockEstimator
    /// Nil when only measuring.
    private let resampler: AudioResampler?
    /// The input position of the next frame, in the estimator's frame count.
    private var position: Int64 = 0
    /// Whether a buffer was measured, and whether one was resampled.
    private var measured = false
    private var started = false
    /// The first output sample's time, and the output samples so far (gaps included).
    private var anchor = 0.0
    private var produced: Int64 = 0
    /// How long an error between the output and the capture times takes to go, and how fast
    /// the ratio in use follows the one wanted: together a loop damped at 0.7.
    static let steeringTime = 2.0
    static let smoothingTime = 1.0
    /// The ratio in use.
    private var ratio = 1.0
    /// The farthest the ratio goes from 1: a device 1% off is broken, not drifting.
    static let ratioLimit = 0.01

    /// - Parameter correcting: false to only measure; buffers pass unchanged.
    /// - Throws: ``EncoderError`` when libsamplerate cannot be loaded or set up.
    init(format: PCMFormat, correcting: Bool) throws(EncoderError) {
        sampleRate = Double(format.sampleRate)
        estimator = AudioClockEstimator(nominalRate: sampleRate)
        resampler = correcting ? try AudioResampler(format: format) : nil
    }

    var isCorrecting: Bool { resampler != nil }

    /// Measures `buffer` and returns it resampled and restamped when correcting (possibly with
    /// no frames while the resampler fills), as it is otherwise.
    mutating func process(_ buffer: AudioBuffer) throws -> AudioBuffer {
        let gap = follow(buffer)
        guard let resampler else { return buffer }
        if !started {
            started = true
            anchor = estimator.time(ofFrame: position - Int64(buffer.frameCount))
        }
        produced += Int64((gap * sampleRate).rounded())
        let start = position - Int64(buffer.frameCount)
        let landing = anchor + Double(produced) * 1e9 / sampleRate
        let error = (landing - estimator.time(ofFrame: start) + resampler.delay * 1e9 / estimator.rate) / 1e9
        let wanted = min(1 + Self.ratioLimit, max(1 - Self.ratioLimit, sampleRate / estimator.rate * (1 - error / Self.steeringTime)))
        ratio += (wanted - ratio) * min(1, Double(buffer.frameCount) / sampleRate / Self.smoothingTime)
        resampler.setRatio(ratio)
        let output = try buffer.bytes.withUnsafeBytes { try resampler.resample($0, frameCount: buffer.frameCount) }
        let stamped = AudioBuffer(bytes: output.bytes, frameCount: output.frameCount, timestamp: UInt64(max(0, landing.rounded())))
        produced += Int64(output.frameCount)
        return stamped
    }

    /// Adds `buffer` to the measurement and moves the position past it.
    /// - Returns: The seconds of a gap before it, 0 for none.
    private mutating func follow(_ buffer: AudioBuffer) -> Double {
        var gap = 0.0
        if measured {
            let expected = estimator.time(ofFrame: position)
            // The timeline's own threshold: a gap it fills with silence is one the output jumps.
            if abs(Double(buffer.timestamp) - expected) > 100_000_000 {
                let next = estimator.frame(at: buffer.timestamp)
                gap = Double(next - position) / estimator.rate
                position = next
            }
        }
        estimator.add(frame: position, time: buffer.timestamp)
        measured = true
        position += Int64(buffer.frameCount)
        return gap
    }

    /// The frames the resampler still holds, stamped where they go; nil when not correcting.
    mutating func flush() throws -> AudioBuffer? {
        guard let resampler, started else { return nil }
        let output = try resampler.flush()
        guard output.frameCount > 0 else { return nil }
        let landing = anchor + Double(produced) * 1e9 / sampleRate
        produced += Int64(output.frameCount)
        return AudioBuffer(bytes: output.bytes, frameCount: output.frameCount, timestamp: UInt64(max(0, landing.rounded())))
    }

    func close() { resampler?.close() }
}
