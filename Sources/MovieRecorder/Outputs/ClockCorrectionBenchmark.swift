import MovieContainer
import MovieCapture
#if canImport(Glibc)
import Glibc
#endif

/// The clock correction alone, for the benchmarks: a tone as a microphone `partsPerMillion` off
/// would deliver it (20 ms buffers, stamped at their true times), generated first, then
/// measured and resampled by the recording's ``AudioClockCorrector``.
@_spi(Benchmarks) public enum ClockCorrectionBenchmark {
    /// Seconds of wall time per second of audio the corrector took over `seconds` of 48 kHz
    /// stereo, resampling (`correcting`) or only measuring; generating the tone is not counted.
    public static func secondsPerSecond(seconds: Int, partsPerMillion: Int64, correcting: Bool) throws -> Double {
        let format = PCMFormat.int16(sampleRate: 48_000, channelCount: 2)
        let buffers = tone(seconds: seconds, partsPerMillion: partsPerMillion)
        var corrector = try AudioClockCorrector(format: format, correcting: correcting)
        defer { corrector.close() }
        var frames = 0
        let start = MonotonicClock.now()
        for buffer in buffers { frames += try corrector.process(buffer).frameCount }
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        guard frames > 0 else { return .nan }
        return elapsed / Double(seconds)
    }

    /// A 997 Hz tone at −6 dBFS in 960-frame stereo buffers, the sample clock `partsPerMillion` fast.
    private static func tone(seconds: Int, partsPerMillion: Int64) -> [AudioBuffer] {
        let rate = 48_000.0 * (1 + Double(partsPerMillion) / 1e6)
        let start = MonotonicClock.now()
        var phase = 0.0
        return (0..<(seconds * 50)).map { index in
            var samples = [Int16](repeating: 0, count: 1920)
            for frame in 0..<960 {
                let value = Int16((16_384 * sin(phase)).rounded())
                samples[2 * frame] = value
                samples[2 * frame + 1] = value
                phase += 2 * Double.pi * 997 / 48_000
            }
            let bytes = samples.withUnsafeBytes { Array($0) }
            let time = start + UInt64(Double(index * 960) / rate * 1e9)
            return AudioBuffer(bytes: bytes, frameCount: 960, timestamp: time)
        }
    }
}
