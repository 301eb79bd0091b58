import Foundation
import Synchronization
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// A microphone whose clock drifts from the system clock, and the recording following it: a
/// tone on a simulated crystal (``SimulatedCrystal``: a known skew, jittered timestamps, some
/// stamped 20 ms late) through the same ``AudioClockCorrector`` a recording uses, hours of it
/// faster than real time; and live recordings of the skewed tone's clicks against the test
/// pattern's flashes, checked in FFmpeg. Serialized: three live recordings at once, under
/// ThreadSanitizer beside the other suites' live recordings, starved them into dropped frames.
@Suite(.serialized) struct AudioClockTests {
    /// What a tone on a crystal gave through a corrector.
    struct Run {
        var inputs: [AudioBuffer] = []
        var outputs: [AudioBuffer] = []
        var drifts: [(seconds: Double, ppm: Double?)] = []
        var error: String?
    }

    /// Plays `source` through a corrector until it ends; `keep` says whether to keep buffers,
    /// `inspect` sees each output buffer as it comes.
    static func correct(_ source: ToneSource, correcting: Bool, keep: Bool = true,
                    inspect: @escaping @Sendable (AudioBuffer) -> Void = { _ in }) async throws -> Run {
        let corrector = Mutex<AudioClockCorrector?>(try AudioClockCorrector(format: source.format, correcting: correcting))
        let run = Mutex(Run())
        let frames = Atomic<Int>(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            do {
                try source.start { event in
                    switch event {
                    case .buffer(let buffer):
                        let result: Result<(AudioBuffer, Double?), any Error> = corrector.withLock { corrector in
                            Result { (try corrector!.process(buffer), corrector!.estimator.drift()) }
                        }
                        switch result {
                        case .success(let (output, drift)):
                            let seen = frames.add(buffer.frameCount, ordering: .relaxed).newValue
                            let seconds = Double(seen) / Double(source.format.sampleRate)
                            run.withLock { run in
                                if keep {
                                    run.inputs.append(buffer)
                                    run.outputs.append(output)
                                }
                                if Int(seconds) > run.drifts.count { run.drifts.append((seconds, drift)) }
                            }
                            inspect(output)
                        case .failure(let error):
                            run.withLock { $0.error = "\(error)" }
                        }
                    case .ended, .interrupted:
                        done.resume()
                    default:
                        break
                    }
                }
            } catch {
                run.withLock { $0.error = "\(error)" }
                done.resume()
            }
        }
        source.stop()
        corrector.withLock { $0?.close() }
        return run.withLock { $0 }
    }

    @Test(arguments: [1000, -1000, 100, -100] as [Int64])
    func theDriftIsMeasuredWithinFivePPMIn30Seconds(ppm: Int64) async throws {
        let crystal = SimulatedCrystal(partsPerMillion: ppm, jitter: 1_000_000, lateStampInterval: 25, lateStamp: 20_000_000)
        let source = try ToneSource(realTime: false, durationFrames: 48_000 * 30, crystal: crystal)
        let run = try await Self.correct(source, correcting: false, keep: false)
        #expect(run.error == nil)
        let measured = try #require(run.drifts.last?.ppm)
        // The crystal's true skew: 48000 × (1 + ppm/10⁶) frames per second.
        #expect(abs(measured - Double(ppm)) <= 5, "measured \(measured) ppm for \(ppm) ppm")
        print("clock drift \(ppm) ppm: measured \(String(format: "%.2f", measured)) ppm after 30 s (1 ms jitter, 1 in 25 stamped 20 ms late)")
    }

    /// THD+N of channel 0 of `buffers` around a tone near `frequency` cycles per sample, the
    /// worst of its blocks of `block` samples after the first `skip`, in dB. In each block a
    /// sine (amplitude, phase, frequency) and an offset are fitted by least squares (Gauss–Newton
    /// from `frequency`): the fit is the fundamental, the rest distortion and noise, as an
    /// analyser's notch that follows the tone leaves it.
    static func worstTHDN(_ buffers: [AudioBuffer], channels: Int, frequency: Double, skip: Int, block: Int) -> Double {
        var samples: [Double] = []
        for buffer in buffers {
            buffer.bytes.withUnsafeBytes { raw in
                let values = raw.bindMemory(to: Int16.self)
                for frame in 0..<buffer.frameCount { samples.append(Double(Int16(littleEndian: values[frame * channels]))) }
            }
        }
        var worst = -200.0
        var start = skip
        while start + block <= samples.count {
            worst = max(worst, thdn(Array(samples[start..<(start + block)]), omega: 2 * Double.pi * frequency))
            start += block
        }
        return worst
    }

    /// THD+N of one block, in dB: residual power over the fitted sine's power.
    static func thdn(_ y: [Double], omega start: Double) -> Double {
        var omega = start
        var p = [0.0, 0.0, 0.0]  // a sin + b cos + c
        for iteration in 0..<6 {
            // Columns: sin, cos, 1 and, after the first pass, d/dω of the sine.
            let withFrequency = iteration > 0
            let n = withFrequency ? 4 : 3
            var m = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
            var v = [Double](repeating: 0, count: n)
            for (i, value) in y.enumerated() {
                let t = Double(i), s = sin(omega * t), c = cos(omega * t)
                var row = [s, c, 1.0]
                // The sine's change with ω, at the last amplitudes: the fit's a, b, c come out
                // whole and ω moves by the fourth unknown.
                if withFrequency { row.append(t * (p[0] * c - p[1] * s)) }
                for r in 0..<n {
                    v[r] += row[r] * value
                    for k in 0..<n { m[r][k] += row[r] * row[k] }
                }
            }
            let x = solve(m, v)
            p = Array(x.prefix(3))
            if withFrequency { omega += x[3] }
        }
        var residual = 0.0
        for (i, value) in y.enumerated() {
            let t = Double(i)
            let fitted = p[0] * sin(omega * t) + p[1] * cos(omega * t) + p[2]
            residual += (value - fitted) * (value - fitted)
        }
        let signal = (p[0] * p[0] + p[1] * p[1]) / 2 * Double(y.count)
        return 10 * log10(residual / signal)
    }

    /// Solves `m x = v` by Gaussian elimination with partial pivoting.
    static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double] {
        var m = matrix, v = vector
        let n = v.count
        for col in 0..<n {
            let pivot = (col..<n).max { abs(m[$0][col]) < abs(m[$1][col]) }!
            m.swapAt(col, pivot)
            v.swapAt(col, pivot)
            for row in (col + 1)..<n {
                let f = m[row][col] / m[col][col]
                for k in col..<n { m[row][k] -= f * m[col][k] }
                v[row] -= f * v[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = v[row]
            for k in (row + 1)..<n { sum -= m[row][k] * x[k] }
            x[row] = sum / m[row][row]
        }
        return x
    }

    @Test(arguments: [1000, -1000, 100] as [Int64])
    func aToneThroughTheCorrectionKeepsItsPurity(ppm: Int64) async throws {
        let crystal = SimulatedCrystal(partsPerMillion: ppm, jitter: 1_000_000, lateStampInterval: 25, lateStamp: 20_000_000)
        let seconds = 40
        let source = try ToneSource(frequency: 997, realTime: false, durationFrames: 48_000 * seconds, crystal: crystal)
        let run = try await Self.correct(source, correcting: true)
        #expect(run.error == nil)
        // In real time the tone is 997 Hz × the crystal's rate; the output follows real time.
        let output = 997 * (1 + Double(ppm) / 1e6) / 48_000
        // Once the estimator has converged (30 s): ten seconds in blocks of a tenth.
        let corrected = Self.worstTHDN(run.outputs, channels: 2, frequency: output, skip: 30 * 48_000, block: 4_800)
        let input = Self.worstTHDN(run.inputs, channels: 2, frequency: 997.0 / 48_000, skip: 30 * 48_000, block: 4_800)
        #expect(corrected <= -80, "THD+N \(corrected) dB through the correction at \(ppm) ppm (the input: \(input) dB)")
        let produced = run.outputs.reduce(0) { $0 + $1.frameCount }
        // 40 s of the crystal's samples last 40 s / (1 + ppm/10⁶) of true time: the output's length.
        let expected = Double(48_000 * seconds) / (1 + Double(ppm) / 1e6)
        #expect(abs(Double(produced) - expected) < 48 * 3, "\(produced) frames out, \(expected) expected")
        print("clock drift \(ppm) ppm: THD+N \(String(format: "%.1f", corrected)) dB corrected, \(String(format: "%.1f", input)) dB the input (997 Hz, -6 dBFS, worst 0.1 s block from 30 to 40 s)")
    }

    /// A live recording of the test pattern's flashes and the clicks of a tone on a crystal
    /// 3000 ppm fast, for 12 s: corrected, every click from the fifth second on is within 5 ms
    /// of its flash, LPCM and AAC alike; uncorrected, the clicks fall behind by 3 ms a second.
    @Test(arguments: [("lpcm", true), ("aac", true), ("aac", false)])
    func aDriftingMicrophoneRecordsInSync(codec: String, correcting: Bool) async throws {
        let ppm: Int64 = 3000
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("drift-\(codec)-\(correcting).mov")
        let video = try TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30), marksSeconds: true)
        let audio = try ToneSource(marksSeconds: true, crystal: SimulatedCrystal(partsPerMillion: ppm, jitter: 500_000))
        let session = CaptureSession()
        let output = MovieFileOutput()
        output.audioSettings = codec == "aac" ? .aac : .lpcm
        output.audioClockCorrection = correcting
        output.maxRecordedDuration = .seconds(12)
        try await session.configure { config in
            try config.addInput(video)
            try config.addInput(audio)
            try config.addOutput(output)
        }
        try await session.startRunning()
        try await output.startRecording(to: path)
        var drifts: [Double] = []
        var result: RecordingResult?
        for await event in output.events {
            if case .didMeasureAudioClockDrift(let value) = event { drifts.append(value) }
            if case .didFinishRecording(let finished) = event {
                result = finished
                break
            }
        }
        await session.stopRunning()
        let finished = try #require(result)
        #expect(finished.isPlayable && finished.isAudioClockCorrected == correcting, "\(finished)")
        let drift = try #require(finished.audioClockDrift, "no drift measured: \(finished)")
        #expect(abs(drift - Double(ppm)) <= Double(ppm) * 0.05, "measured \(drift) ppm for \(ppm)")
        #expect(!drifts.isEmpty, "no drift event")
        let measured = try SyncChecker.measureWithFFmpeg(path)
        let pairs = zip(measured.flashes, measured.offsets).map { (time: $0, offset: $1) }
        #expect(pairs.count >= 10, "\(measured)")
        if correcting {
            let settled = pairs.filter { $0.time >= 5 }
            #expect(settled.allSatisfy { abs($0.offset) <= 5 }, "corrected, \(codec): \(measured)")
        } else {
            // The clicks fall behind the flashes by the drift: 3 ms a second.
            let first = try #require(pairs.first), last = try #require(pairs.last)
            let slope = (last.offset - first.offset) / (last.time - first.time)
            #expect(abs(slope - Double(ppm) / 1000) <= Double(ppm) / 1000 * 0.2, "uncorrected slope \(slope) ms/s: \(measured)")
        }
        print("clock drift \(ppm) ppm live, \(codec), \(correcting ? "corrected" : "not corrected"): measured \(String(format: "%.1f", drift)) ppm; \(measured)")
    }

    /// `movrec record --tone-drift`: the tone as a microphone 3000 ppm fast; the result line
    /// reports the drift and the correction, and the clicks stay on the flashes.
    @Test func movrecFollowsADriftingTone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("drift.mov")
        let result = try run(movrecPath(), ["record", path, "--video", "testsrc", "--size", "320x240", "--audio", "tone",
                                            "--sync-marks", "--tone-drift", "3000", "--duration", "11", "--quiet"])
        #expect(result.status == 0, "movrec record: \(result.error)")
        #expect(result.output.contains("audio clock +300") && result.output.contains("(corrected)"), "\(result.output)")
        let measured = try SyncChecker.measureWithFFmpeg(path)
        let settled = zip(measured.flashes, measured.offsets).filter { $0.0 >= 5 }
        #expect(!settled.isEmpty && settled.allSatisfy { abs($0.1) <= 5 }, "\(measured)")
        let refused = try run(movrecPath(), ["record", dir.file("x.mov"), "--video", "testsrc", "--audio", "none", "--tone-drift", "100"])
        #expect(refused.status == 2 && refused.error.contains("--tone-drift needs --audio tone"), "\(refused.error)")
    }

    /// Frames lost in an overrun (or not taken during a pause) leave a gap in the capture times:
    /// the corrected output jumps over it by as much, for the timeline to fill with silence,
    /// and the measurement goes on across it.
    @Test func aGapIsCarriedThroughTheCorrection() throws {
        var corrector = try AudioClockCorrector(format: .int16(sampleRate: 48_000, channelCount: 2), correcting: true)
        defer { corrector.close() }
        let silence = [UInt8](repeating: 0, count: 960 * 4)
        let rate = 48_000 * 1.0005  // 500 ppm fast
        var outputs: [AudioBuffer] = []
        for index in 0..<1000 {
            // Buffers 600 to 614 (300 ms of audio) are lost.
            guard !(600..<615).contains(index) else { continue }
            let time = 1_000_000_000 + UInt64(Double(index * 960) / rate * 1e9)
            outputs.append(try corrector.process(AudioBuffer(bytes: silence, frameCount: 960, timestamp: time)))
        }
        let next = zip(outputs, outputs.dropFirst()).map { Double($1.timestamp) - Double($0.timestamp) - Double($0.frameCount) / 48_000 * 1e9 }
        let jumps = next.filter { abs($0) > 1_000_000 }
        #expect(jumps.count == 1 && abs(jumps[0] - 15 * 960 / rate * 1e9) < 1_000_000, "jumps \(jumps) ns")
        let drift = try #require(corrector.estimator.drift())
        #expect(abs(drift - 500) < 5, "\(drift) ppm after the gap")
    }

    /// Only signed 16-bit little-endian audio is resampled: anything else is refused by the
    /// resampler with its reason, and a recording's corrector then only measures.
    @Test func onlySixteenBitAudioIsResampled() throws {
        #expect(AudioResampler.takes(.int16(sampleRate: 48_000, channelCount: 2)))
        var float = PCMFormat.int16(sampleRate: 48_000, channelCount: 2)
        float.bitsPerChannel = 32
        float.isFloat = true
        #expect(!AudioResampler.takes(float))
        #expect(throws: EncoderError.self) { _ = try AudioResampler(format: float) }
        let measuring = try AudioClockCorrector(format: float, correcting: false)
        #expect(!measuring.isCorrecting)
    }

    /// Ten hours of a microphone 1000 ppm (or 100 ppm) off, with jittered and late stamps, in a
    /// minute or so: at 8 kHz mono, in 100 ms buffers. Each minute's click, found in the
    /// corrected output, is within 5 ms of its true time once the estimator has converged.
    @Test(arguments: [1000, -100] as [Int64])
    func tenHoursStayWithinFiveMilliseconds(ppm: Int64) async throws {
        let rate = 8_000, hours = 10
        let start = MonotonicClock.now()
        let crystal = SimulatedCrystal(partsPerMillion: ppm, jitter: 1_000_000, lateStampInterval: 25, lateStamp: 20_000_000, start: start)
        let source = try ToneSource(sampleRate: rate, channelCount: 1, realTime: false, bufferFrames: rate / 10,
                                    durationFrames: rate * 3600 * hours, marksSeconds: true, crystal: crystal)
        let finder = Mutex(ClickFinder(rate: Double(rate), trueStart: start, everySeconds: 60))
        let run = try await Self.correct(source, correcting: true, keep: false) { output in finder.withLock { $0.scan(output) } }
        #expect(run.error == nil)
        let found = finder.withLock { $0 }
        #expect(found.offsets.count >= hours * 60 - 1, "\(found.offsets.count) clicks found")
        let settled = found.offsets.filter { $0.second >= 60 }
        let worst = settled.map { abs($0.milliseconds) }.max() ?? .infinity
        #expect(worst <= 5, "worst click \(worst) ms off: \(found.offsets.filter { abs($0.milliseconds) > 5 }.prefix(5))")
        let hourly = found.offsets.filter { $0.second % 3600 == 0 }.map { "\($0.second / 3600) h \(String(format: "%+.2f", $0.milliseconds)) ms" }
        print("clock drift \(ppm) ppm over \(hours) h: worst \(String(format: "%.2f", worst)) ms after the first minute; \(hourly.joined(separator: ", ")); drift measured \(String(format: "%.2f", run.drifts.last?.ppm ?? .nan)) ppm")
    }
}

/// Finds clicks in a corrected stream of output buffers: one every `everySeconds` of true time,
/// looked for within 100 ms of where it belongs, and how far each is from its true time.
struct ClickFinder {
    let rate: Double
    let trueStart: UInt64
    let everySeconds: Int
    /// Each click's true second and its offset in milliseconds (positive: late).
    var offsets: [(second: Int, milliseconds: Double)] = []
    private var next = 0

    init(rate: Double, trueStart: UInt64, everySeconds: Int) {
        self.rate = rate
        self.trueStart = trueStart
        self.everySeconds = everySeconds
    }

    mutating func scan(_ buffer: AudioBuffer) {
        guard buffer.frameCount > 0 else { return }
        let bufferStart = Double(buffer.timestamp)
        let bufferEnd = bufferStart + Double(buffer.frameCount) * 1e9 / rate
        while true {
            let due = Double(trueStart) + Double(next) * 1e9
            if bufferStart > due + 100_000_000 { next += everySeconds; continue }
            guard bufferEnd > due - 100_000_000 else { return }
            let onset: Double? = buffer.bytes.withUnsafeBytes { raw in
                let values = raw.bindMemory(to: Int16.self)
                for frame in 0..<buffer.frameCount where Int16(littleEndian: values[frame]) > 8_000 {
                    let time = bufferStart + Double(frame) * 1e9 / rate
                    if abs(time - due) < 100_000_000 { return time }
                }
                return nil
            }
            guard let onset else { return }
            offsets.append((next, (onset - due) / 1e6))
            next += everySeconds
        }
    }
}
