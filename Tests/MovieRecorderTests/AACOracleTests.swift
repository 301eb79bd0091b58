import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The AAC golden movies as independent readers see them: the codec, rate and channels, and —
/// after FFmpeg's and GStreamer's decoders — the tone exactly where the WAV had it, the
/// encoder's delay hidden by the edit list.
@Suite struct AACOracleTests {
    /// The signal-to-noise ratio of `decoded` against `reference` over the reference's length
    /// (less one access unit), in dB, without shifting either: the tone is in phase only where
    /// the decoder put its first frame at time zero (a 1024-frame shift turns a 1 kHz tone a
    /// third of a period at 48 kHz, and a fifth at 44.1 kHz).
    func signalToNoise(_ decoded: [Int16], _ reference: [Int16], lag: Int = 0) -> Double {
        let count = min(decoded.count - lag, reference.count) - AACFormat.framesPerPacket
        var signal = 0.0, noise = 0.0
        for i in 0..<max(0, count) {
            let error = Double(decoded[i + lag]) - Double(reference[i])
            signal += Double(reference[i]) * Double(reference[i])
            noise += error * error
        }
        return 10 * log10(signal / max(noise, 1))
    }

    /// The WAV's first channel.
    func referenceSamples(_ golden: GoldenCase) throws -> [Int16] {
        let wav = try WAVFile(path: fixture(golden.audio!))
        let bytes = try RandomAccessFile.readAll(fixture(golden.audio!))
        let channels = Int(wav.format.channelCount)
        let samples = SyncChecker.int16Samples(Data(bytes[Int(wav.dataOffset)...]))
        return stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
    }

    @Test(arguments: GoldenCase.aacCases)
    func ffmpegDecodesTheToneWhereTheWAVHasIt(_ golden: GoldenCase) throws {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", golden.path, "-map", "0:a", "-af", "pan=mono|c0=c0",
                                        "-f", "s16le", "-"])
        #expect(result.status == 0 && result.error.isEmpty, "ffmpeg: \(result.error)")
        let decoded = SyncChecker.int16Samples(result.outputData)
        let reference = try referenceSamples(golden)
        let snr = signalToNoise(decoded, reference)
        #expect(snr > 20, "the decoded tone is not where the WAV has it (SNR \(snr) dB): the priming is not hidden")
        // FFmpeg trims the start by the edit list but keeps the last access unit whole.
        #expect(decoded.count >= reference.count && decoded.count < reference.count + AACFormat.framesPerPacket,
                "\(decoded.count) frames decoded for \(reference.count)")
    }

    @Test(arguments: GoldenCase.aacCases)
    func gstreamerDecodesTheToneWhereTheWAVHasIt(_ golden: GoldenCase) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = dir.file("a.raw")
        let result = try run("gst-launch-1.0", ["-q", "filesrc", "location=\(golden.path)", "!", "qtdemux", "!", "aacparse", "!",
                                                "avdec_aac", "!", "audioconvert", "!", "audio/x-raw,format=S16LE", "!",
                                                "deinterleave", "name=d", "d.src_0", "!", "filesink", "location=\(output)"])
        #expect(result.status == 0, "gst-launch: \(result.error)")
        let decoded = SyncChecker.int16Samples(try Data(contentsOf: URL(fileURLWithPath: output)))
        let reference = try referenceSamples(golden)
        // GStreamer clips by nanoseconds: at 44.1 kHz its 23 219 954 ns for 1024 frames leave one
        // frame of the delay in (a frame early, 23 µs), which FFmpeg, counting frames, does not.
        let best = (0...1).max { signalToNoise(decoded, reference, lag: $0) < signalToNoise(decoded, reference, lag: $1) }!
        let snr = signalToNoise(decoded, reference, lag: best)
        #expect(snr > 20 && (golden.audio!.contains("48k") ? best == 0 : best <= 1),
                "GStreamer's decoded tone is not where the WAV has it (SNR \(snr) dB \(best) frames in)")
        #expect(abs(decoded.count - reference.count) < AACFormat.framesPerPacket, "\(decoded.count) frames for \(reference.count)")
    }

    @Test(arguments: GoldenCase.aacCases)
    func mediainfoAndExiftoolSeeAACLC(_ golden: GoldenCase) throws {
        let wav = try WAVFile(path: fixture(golden.audio!))
        let mediainfo = try run("mediainfo", ["--Inform=Audio;%Format% %Format_AdditionalFeatures%|%SamplingRate%|%Channel(s)%|%Duration%", golden.path])
        #expect(mediainfo.output.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "AAC LC|\(wav.format.sampleRate)|\(wav.format.channelCount)|1000", "mediainfo: \(mediainfo.output)")
        let exiftool = try run("exiftool", ["-j", "-n", "-AudioFormat", "-AudioSampleRate", "-AudioChannels", golden.path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(exiftool.output.utf8)) as? [[String: Any]]).first
        #expect(json?["AudioFormat"] as? String == "mp4a")
        #expect((json?["AudioSampleRate"] as? NSNumber)?.intValue == Int(wav.format.sampleRate))
        #expect((json?["AudioChannels"] as? NSNumber)?.intValue == Int(wav.format.channelCount))
    }

    @Test(arguments: GoldenCase.aacCases)
    func theReaderGivesTheConfigurationBack(_ golden: GoldenCase) throws {
        let info = try MovieInfo(source: RandomAccessFile(path: golden.path, mode: .read))
        let audio = try #require(info.tracks.first { $0.mediaType == "soun" })
        let aac = try #require(audio.aacFormat)
        let wav = try WAVFile(path: fixture(golden.audio!))
        #expect(aac.objectType == 2 && aac.sampleRate == wav.format.sampleRate && aac.channelCount == wav.format.channelCount)
        #expect(aac.primingFrames == 1024)
        #expect(audio.pcmFormat == nil, "an AAC track is not read as PCM")
        #expect(audio.mediaHeader.timescale == wav.format.sampleRate)
        let samples = try #require(audio.sampleTable).samples()
        #expect(samples.allSatisfy { $0.duration == 1024 && $0.isSync })
        #expect(audio.editList.count == 1 && audio.editList[0].mediaTime == 1024 && audio.editList[0].segmentDuration == 600)
    }

    /// The sync checker catches priming that is not hidden: the same movie with the audio edit
    /// starting at media time 0 puts every click 1024 frames (21.3 ms at 48 kHz) late.
    @Test func theSyncCheckerSeesAnUnhiddenPriming() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try SyncMarkFiles.writeY4M(dir.file("marks.y4m"), seconds: 3)
        try SyncMarkFiles.writeWAV(dir.file("marks.wav"), seconds: 3)
        let path = dir.file("marks.mov")
        let result = try run(movrecPath(), ["record", path, "--video", dir.file("marks.y4m"), "--audio", dir.file("marks.wav"), "--quiet"])
        #expect(result.status == 0, "movrec record: \(result.error)")
        let info = try MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        let trak = try #require(info.tree.atoms.first { $0.type == "moov" }?.children("trak").first {
            $0.descendant(["mdia", "hdlr"]) != nil && (try? $0.descendant(["mdia", "hdlr"])?.decode(HandlerAtom.self).componentSubtype) == "soun"
        })
        let elst = try #require(trak.descendant(["edts", "elst"]))
        let file = try RandomAccessFile(path: path, mode: .update)
        // Version 0: the header, version and flags, entry count and segment duration, then the media time.
        try [UInt8](repeating: 0, count: 4).withUnsafeBytes { try file.write($0, at: elst.offset + 20) }
        try file.close()
        let offsets = try SyncChecker.measureWithFFmpeg(path).offsets
        #expect(offsets.count == 3 && offsets.allSatisfy { abs($0 - 1024 / 48.0) < 0.05 }, "offsets \(offsets)")
    }
}
