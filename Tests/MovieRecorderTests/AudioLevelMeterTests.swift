import Foundation
import Testing
import MovieCapture
import MovieContainer
import MovieRecorder

/// Levels as AVCaptureAudioChannel reports them, measured on buffers of known content.
@Suite struct AudioLevelMeterTests {
    /// Interleaved samples of `channels`, each given as a function of the frame index, at full
    /// scale 1.0, written in `format`.
    func buffer(_ format: PCMFormat, frames: Int, _ channels: [(Int) -> Double]) -> AudioBuffer {
        var bytes: [UInt8] = []
        let size = Int(format.bitsPerChannel) / 8
        for frame in 0..<frames {
            for channel in channels {
                let value = channel(frame)
                let raw: UInt32 = format.isFloat ? Float(value).bitPattern
                    : UInt32(bitPattern: Int32(max(-2_147_483_648, min(2_147_483_647, (value * 2_147_483_648).rounded()))))
                var sample = (0..<size).map { UInt8(truncatingIfNeeded: raw >> UInt32(8 * (format.isFloat ? $0 : 4 - size + $0))) }
                if format.isBigEndian { sample.reverse() }
                bytes += sample
            }
        }
        return AudioBuffer(bytes: bytes, frameCount: frames, timestamp: 0)
    }

    static let formats: [PCMFormat] = [
        .int16(sampleRate: 48000, channelCount: 2),
        PCMFormat(sampleRate: 48000, channelCount: 2, bitsPerChannel: 24, isBigEndian: true),
        PCMFormat(sampleRate: 48000, channelCount: 2, bitsPerChannel: 32, isFloat: true),
    ]

    /// A sine at amplitude A reads 20·log10(A/√2) within 0.1 dB on its channel; a silent channel
    /// beside it reads the floor.
    @Test(arguments: formats)
    func aSineReadsItsRMSAndSilenceTheFloor(_ format: PCMFormat) throws {
        var meter = try AudioLevelMeter(format: format)
        for amplitude in [1.0, 0.5, 0.1, 0.01] {
            let sine = { (n: Int) in amplitude * sin(2 * Double.pi * 1000 * Double(n) / 48000) }
            let levels = meter.measure(buffer(format, frames: 4800, [sine, { _ in 0 }]))
            let expected = Float(20 * log10(amplitude / 2.0.squareRoot()))
            #expect(abs(levels[0].averagePowerLevel - expected) <= 0.1, "\(format) A=\(amplitude): \(levels[0])")
            #expect(levels[1].averagePowerLevel == AudioChannelLevel.floor && levels[1].peakHoldLevel == AudioChannelLevel.floor)
        }
    }

    /// A clipped signal's peak reads 0 dBFS; the peak is held for a second of audio, then follows
    /// the signal down.
    @Test func aClippedPeakReadsZeroAndIsHeldForASecond() throws {
        let format = PCMFormat.int16(sampleRate: 48000, channelCount: 1)
        var meter = try AudioLevelMeter(format: format)
        let clipped = meter.measure(buffer(format, frames: 480, [{ $0 % 2 == 0 ? -1 : 1 }]))
        #expect(abs(clipped[0].peakHoldLevel) <= 0.01 && abs(clipped[0].averagePowerLevel) <= 0.01, "\(clipped)")
        let quiet = { (n: Int) in 0.01 * sin(2 * Double.pi * 1000 * Double(n) / 48000) }
        var held: [Float] = []
        for _ in 0..<12 { held.append(meter.measure(buffer(format, frames: 4800, [quiet]))[0].peakHoldLevel) }
        #expect(held.prefix(9).allSatisfy { abs($0) <= 0.01 }, "held for the second after the peak: \(held)")
        #expect(abs(held.last! + 40) <= 0.1, "then the quiet signal's own peak, −40 dBFS: \(held)")
    }

    /// The tone source's buffers read the level its amplitude gives.
    @Test func theToneReadsItsAmplitude() async throws {
        let tone = try ToneSource(frequency: 1000, amplitude: 0.25, realTime: false, durationFrames: 48000)
        var meter = try AudioLevelMeter(format: tone.format)
        let buffers = AsyncStream<AudioBuffer> { continuation in
            do {
                try tone.start { event in
                    if case .buffer(let buffer) = event { continuation.yield(buffer) }
                    if case .ended = event { continuation.finish() }
                }
            } catch { continuation.finish() }
        }
        var levels: [AudioChannelLevel] = []
        for await buffer in buffers { levels = meter.measure(buffer) }
        tone.stop()
        let expected = Float(20 * log10(0.25 / 2.0.squareRoot()))
        #expect(!levels.isEmpty && levels.allSatisfy { abs($0.averagePowerLevel - expected) <= 0.1 }, "\(levels)")
    }

    @Test func unsupportedSamplesAreRefused() {
        #expect(throws: SourceError.self) { try AudioLevelMeter(format: PCMFormat(sampleRate: 48000, channelCount: 1, bitsPerChannel: 8)) }
    }
}

/// The session's audio levels: measured while it runs, with or without a recording.
@Suite struct SessionAudioLevelTests {
    /// A live tone at amplitude 0.25 reads −15.05 dBFS on both channels through the session,
    /// with no output recording, from the property and the stream alike; stopping clears them.
    @Test func aRunningSessionMetersItsAudioInput() async throws {
        let session = CaptureSession()
        try await session.configure { config in try config.addInput(ToneSource(amplitude: 0.25)) }
        #expect(session.audioChannelLevels.isEmpty)
        let updates = session.audioLevelUpdates()
        try await session.startRunning()
        var readings = 0
        var last: [AudioChannelLevel] = []
        for await levels in updates {
            readings += 1
            last = levels
            if readings == 10 { break }
        }
        let expected = Float(20 * log10(0.25 / 2.0.squareRoot()))
        #expect(last.count == 2 && last.allSatisfy { abs($0.averagePowerLevel - expected) <= 0.1 }, "\(last)")
        #expect(last.allSatisfy { abs($0.peakHoldLevel - Float(20 * log10(0.25))) <= 0.1 }, "\(last)")
        #expect(session.audioChannelLevels.count == 2)
        await session.stopRunning()
        #expect(session.audioChannelLevels.isEmpty)
    }
}
