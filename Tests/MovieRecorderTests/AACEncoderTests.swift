import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The AAC encoder on what a recording or a mux can hand it: every channel count with a
/// standard AAC layout, high rates, and misuse (encoding after the flush, closing twice).
@Suite struct AACEncoderTests {
    /// `movrec mux` of a second of the golden video with a WAV of `channels` channels at `rate`,
    /// encoded to AAC; returns what ffprobe says of the audio.
    func muxAAC(channels: Int, rate: Int, in dir: TemporaryDirectory) throws -> (result: ProgramResult, audio: ProbedStream?) {
        let wav = dir.file("in-\(channels)-\(rate).wav"), movie = dir.file("out-\(channels)-\(rate).mov")
        let made = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=\(rate)", "-t", "1",
                                      "-ac", String(channels), "-c:a", "pcm_s16le", wav])
        #expect(made.status == 0, "ffmpeg: \(made.error)")
        let result = try run(movrecPath(), ["mux", movie, "--video", fixture("testsrc-ipp.264"), "--audio", wav, "--audio-codec", "aac"])
        let audio = result.status == 0 ? try ffprobeStreams(movie).first { $0.codec_type == "audio" } : nil
        if result.status == 0 { #expect(try decodeAllFrames(movie).errors.isEmpty) }
        return (result, audio)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 8])
    func everyStandardChannelLayoutEncodes(channels: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (result, audio) = try muxAAC(channels: channels, rate: 48_000, in: dir)
        #expect(result.status == 0, "movrec mux: \(result.error)")
        #expect(audio?.codec_name == "aac" && audio?.channels == channels && audio?.sample_rate == "48000")
    }

    @Test func sevenChannelsAreRefusedNamingTheLayouts() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (result, _) = try muxAAC(channels: 7, rate: 48_000, in: dir)
        #expect(result.status == 1)
        #expect(result.error.contains("7 channels have no standard AAC channel configuration"), "\(result.error)")
    }

    @Test(arguments: [44_100, 96_000])
    func otherRatesKeepTheirRate(rate: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (result, audio) = try muxAAC(channels: 2, rate: rate, in: dir)
        #expect(result.status == 0, "movrec mux: \(result.error)")
        #expect(audio?.sample_rate == String(rate) && Double(audio?.duration ?? "") == 1.0 && Double(audio?.start_time ?? "") == 0)
        let info = try MovieInfo(path: dir.file("out-2-\(rate).mov"))
        #expect(info.tracks.first { $0.mediaType == "soun" }?.aacFormat?.sampleRate == UInt32(rate))
    }

    @Test func aFlushedOrClosedEncoderRefusesMoreAudio() throws {
        let encoder = try AACEncoder(input: .int16(sampleRate: 48_000, channelCount: 2), bitRate: 128_000)
        var packets = 0
        let second = [UInt8](repeating: 0, count: 48_000 * 4)
        try second.withUnsafeBytes { try encoder.encode($0) { _ in packets += 1 } }
        try encoder.flush { _ in packets += 1 }
        // 48 000 frames plus the 1024-frame delay, in access units of 1024.
        #expect(packets == (48_000 + 1024 + 1023) / 1024)
        try encoder.flush { _ in packets += 1 }
        #expect(packets == (48_000 + 1024 + 1023) / 1024, "a second flush gives nothing")
        #expect(throws: EncoderError.self) { try second.withUnsafeBytes { try encoder.encode($0) { _ in } } }
        encoder.close()
        encoder.close()
        #expect(throws: EncoderError.self) { try second.withUnsafeBytes { try encoder.encode($0) { _ in } } }
    }
}
