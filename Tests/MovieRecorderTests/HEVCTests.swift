import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// HEVC as iPhones write it: 'hvc1' with a complete `hvcC` that matches FFmpeg's record of the
/// same stream field by field, decoded by GStreamer's two HEVC decoders, the codec string from
/// the record's bits, and `movrec inspect` naming profile, tier and level.
@Suite struct HEVCTests {
    /// GStreamer's FFmpeg decoder and libde265 decode every frame of every HEVC golden movie.
    @Test(arguments: GoldenCase.hevcCases)
    func gstreamerDecodesEveryFrame(_ golden: GoldenCase) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        for decoder in ["avdec_h265", "libde265dec"] {
            let output = dir.file("\(decoder).yuv")
            let result = try run("gst-launch-1.0", ["-q", "filesrc", "location=\(golden.path)", "!", "qtdemux", "!", "h265parse", "!",
                                                    decoder, "!", "videoconvert", "!", "video/x-raw,format=I420", "!",
                                                    "filesink", "location=\(output)"])
            #expect(result.status == 0, "\(decoder): \(result.error)")
            let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            #expect(size == golden.frames * 160 * 120 * 3 / 2, "\(decoder) decoded \(size / (160 * 120 * 3 / 2)) pictures")
        }
    }

    /// The bytes of an `hvcC` atom body in `path` (the first one).
    func hvcC(_ path: String) throws -> [UInt8] {
        let info = try MovieInfo(path: path)
        return try #require(info.videoTrack?.videoEntry?.extensions.first { $0.type == "hvcC" }?.body)
    }

    /// The NAL units of an `hvcC` record's arrays by type, each without trailing zero bytes
    /// (FFmpeg keeps the zero byte of a four-byte start code on the unit before it).
    func arrays(_ record: [UInt8]) -> [UInt8: [[UInt8]]] {
        var result: [UInt8: [[UInt8]]] = [:]
        var position = 23
        for _ in 0..<Int(record[22]) {
            let type = record[position] & 0x3F
            result[type | (record[position] & 0x80 == 0 ? 0x40 : 0), default: []] += []  // an incomplete array
            let count = Int(record[position + 1]) << 8 | Int(record[position + 2])
            position += 3
            for _ in 0..<count {
                let length = Int(record[position]) << 8 | Int(record[position + 1])
                var unit = Array(record[position + 2..<position + 2 + length])
                while unit.last == 0 { unit.removeLast() }
                result[type, default: []].append(unit)
                position += 2 + length
            }
        }
        return result
    }

    /// Records the test pattern with x265, then has FFmpeg write the same stream as 'hvc1' from
    /// Annex B: the two records agree on every field, and on the parameter sets.
    @Test(arguments: [("veryfast", "320x240"), ("ultrafast", "1280x720")])
    func hvcCMatchesFFmpegsRecordFieldByField(preset: String, size: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let ours = dir.file("ours.mov"), annexB = dir.file("ours.265"), theirs = dir.file("ffmpeg.mov")
        let recorded = try run(movrecPath(), ["record", ours, "--video", "testsrc", "--size", size, "--duration", "1", "--codec", "hevc",
                                              "--preset", preset, "--quiet"])
        #expect(recorded.status == 0, "movrec: \(recorded.error)")
        let extracted = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", ours, "-c", "copy", "-bsf:v", "hevc_mp4toannexb", annexB])
        #expect(extracted.status == 0, "ffmpeg: \(extracted.error)")
        let remuxed = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", annexB, "-c", "copy", "-tag:v", "hvc1", theirs])
        #expect(remuxed.status == 0, "ffmpeg: \(remuxed.error)")
        let a = try hvcC(ours), b = try hvcC(theirs)
        let fields: [(String, (([UInt8]) -> Int))] = [
            ("configurationVersion", { Int($0[0]) }), ("general_profile_space", { Int($0[1] >> 6) }),
            ("general_tier_flag", { Int($0[1] >> 5 & 1) }), ("general_profile_idc", { Int($0[1] & 0x1F) }),
            ("general_profile_compatibility_flags", { $0[2...5].reduce(0) { $0 << 8 | Int($1) } }),
            ("general_constraint_indicator_flags", { $0[6...11].reduce(0) { $0 << 8 | Int($1) } }),
            ("general_level_idc", { Int($0[12]) }),
            ("reserved 1111 + min_spatial_segmentation_idc", { Int($0[13]) << 8 | Int($0[14]) }),
            ("reserved 111111 + parallelismType", { Int($0[15]) }), ("reserved 111111 + chromaFormat", { Int($0[16]) }),
            ("reserved 11111 + bitDepthLumaMinus8", { Int($0[17]) }), ("reserved 11111 + bitDepthChromaMinus8", { Int($0[18]) }),
            ("avgFrameRate", { Int($0[19]) << 8 | Int($0[20]) }),
            ("constantFrameRate, numTemporalLayers, temporalIdNested, lengthSizeMinusOne", { Int($0[21]) }),
        ]
        for (name, field) in fields { #expect(field(a) == field(b), "\(name): ours \(field(a)), FFmpeg's \(field(b))") }
        #expect(a[13] >> 4 == 0xF && a[15] >> 2 == 0x3F && a[16] >> 2 == 0x3F && a[17] >> 3 == 0x1F, "reserved bits are 1")
        #expect(a[21] & 3 == 3, "four-byte NAL unit lengths")
        #expect(arrays(a)[32] == arrays(b)[32] && arrays(a)[33] == arrays(b)[33] && arrays(a)[34] == arrays(b)[34], "VPS, SPS, PPS")
        // Every array complete: the parameter sets are never in the samples ('hvc1').
        #expect(arrays(a).keys.sorted() == [32, 33, 34], "arrays \(arrays(a).keys.sorted()): 64 and up are incomplete")
        // The codec string from FFmpeg's record, by ISO/IEC 14496-15 Annex E: compatibility
        // flags bit-reversed, constraint bytes to the last non-zero one.
        let reversed = (0..<32).reduce(0) { $0 | ((fields[4].1(b) >> $1) & 1) << (31 - $1) }
        var constraints = Array(b[6...11])
        while constraints.last == 0 { constraints.removeLast() }
        let expected = "hvc1.\(b[1] & 0x1F).\(String(reversed, radix: 16, uppercase: true)).\(b[1] & 0x20 != 0 ? "H" : "L")\(b[12])"
            + constraints.map { "." + String($0, radix: 16, uppercase: true) }.joined()
        #expect(try MovieInfo(path: ours).videoTrack?.codecString == expected)
        // The colours the settings give (BT.709) are in the VUI and in `colr`, as for H.264.
        #expect(try MovieInfo(path: ours).videoTrack?.color == .bt709)
        let probed = try run("ffprobe", ["-v", "error", "-show_entries", "stream=color_primaries,color_transfer,color_space",
                                         "-of", "csv=p=0", theirs])
        #expect(probed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "bt709,bt709,bt709", "the VUI: \(probed.output)")
    }

    /// No parameter set in any sample of an 'hvc1' track: they live only in `hvcC`, even when
    /// the muxed stream repeated them before every keyframe (as an 'hev1' stream carries them).
    @Test func samplesCarryNoParameterSets() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let repeated = dir.file("repeated.265"), muxed = dir.file("muxed.mov")
        let made = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-frames:v", "60",
                                      "-c:v", "libx265", "-x265-params", "log-level=error:repeat-headers=1:keyint=15", "-f", "hevc", repeated])
        #expect(made.status == 0, "\(made.error)")
        let stream = try RandomAccessFile.readAll(repeated)
        #expect(AnnexBStream.nalUnits(in: stream).filter { $0.first! >> 1 & 0x3F == 33 }.count >= 4, "the input repeats its SPS")
        let result = try run(movrecPath(), ["mux", muxed, "--video", repeated])
        #expect(result.status == 0, "\(result.error)")
        for path in [fixture("golden/hevc-bframes.mov"), muxed] { try expectNoParameterSets(in: path) }
        let decoded = try decodeAllFrames(muxed)
        #expect(decoded.errors.isEmpty && decoded.videoFrames == 60, "\(decoded)")
    }

    func expectNoParameterSets(in path: String) throws {
        let info = try MovieInfo(path: path)
        let track = try #require(info.videoTrack)
        #expect(track.codec == "hvc1")
        let file = try RandomAccessFile(path: path, mode: .read)
        var types: Set<UInt8> = []
        for sample in try #require(track.sampleTable).samples() {
            let bytes = try file.read(at: sample.offset, count: Int(sample.size))
            var position = 0
            while position + 5 < bytes.count {
                let length = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
                types.insert(bytes[position + 4] >> 1 & 0x3F)
                position += 4 + length
            }
            #expect(position == bytes.count, "whole length-prefixed NAL units")
        }
        #expect(types.isDisjoint(with: [32, 33, 34]), "NAL unit types in samples: \(types.sorted())")
        #expect(types.contains(19) || types.contains(20), "an IDR picture")
    }

    /// The codec string for the two records ISO/IEC 14496-15 Annex E spells out.
    @Test func codecStringsFollowAnnexE() {
        func string(space: UInt8, high: Bool, idc: UInt8, compatibility: UInt32, constraints: UInt64, level: UInt8) -> String {
            HEVCDecoderConfiguration.codecString(HEVCProfileTierLevel(
                profileSpace: space, isHighTier: high, profileIDC: idc, compatibilityFlags: compatibility,
                constraintFlags: constraints, levelIDC: level))
        }
        #expect(string(space: 0, high: false, idc: 1, compatibility: 0x6000_0000, constraints: 0xB0 << 40, level: 93) == "hvc1.1.6.L93.B0")
        #expect(string(space: 1, high: true, idc: 4, compatibility: 0x0800_0000, constraints: 0xB0 << 40 | 0x23 << 32, level: 120)
                == "hvc1.A4.10.H120.B0.23")
    }

    /// `movrec inspect` names the codec string and the profile, tier and level.
    @Test func inspectNamesProfileTierAndLevel() throws {
        let result = try run(movrecPath(), ["inspect", fixture("golden/hevc-orientation-90.mov")])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("track 1: video 'hvc1' 160x120"), "\(result.output)")
        #expect(result.output.contains("codec: hvc1.1.6.L60.90 (HEVC Main, Main tier, level 2)"), "\(result.output)")
        let json = try run(movrecPath(), ["inspect", "--json", fixture("golden/hevc-orientation-90.mov")])
        #expect(json.output.contains("\"profile\":\"HEVC Main, Main tier, level 2\""), "\(json.output.prefix(2000))")
    }

    /// A missing x265 settings name is a typed error naming the setting.
    @Test func badSettingsAreTypedErrors() {
        let format = VideoFormat(width: 160, height: 120, pixelFormat: .i420, frameRate: FrameRate(frames: 30))
        func message(_ change: (inout VideoEncoderSettings) -> Void) -> String {
            var settings = VideoEncoderSettings(codec: .hevc)
            change(&settings)
            do {
                _ = try HEVCEncoder(format: format, timescale: 600, settings: settings)
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        #expect(message { $0.preset = "warp" }.contains("preset 'warp' is not known to x265"))
        #expect(message { $0.profile = "high" }.contains("profile 'high'"))
        #expect(message { $0.options["no-such-option"] = "1" }.contains("x265 has no option 'no-such-option'"))
        #expect(message { $0.rateControl = .constantQuality(crf: 60) }.contains("CRF 60.0 is outside 0...51"))
        #expect(message { _ in } == "opened")
    }

    /// The preset a live source gets: the slowest that keeps up with a fifth to spare, and
    /// ultrafast with its shortfall named when none does (speeds of Benchmarks case l).
    @Test func aLiveSourceGetsAPresetThatKeepsUp() throws {
        let rate = FrameRate(frames: 30)
        let small = HEVCPresetChoice.choose(width: 640, height: 480, frameRate: rate, processorCount: 2)
        #expect(small.preset == "veryfast" && small.keepsUp)
        let hd = HEVCPresetChoice.choose(width: 1280, height: 720, frameRate: rate, processorCount: 2)
        #expect(hd.preset == "ultrafast" && hd.keepsUp, "\(hd)")
        let full = HEVCPresetChoice.choose(width: 1920, height: 1080, frameRate: rate, processorCount: 2)
        #expect(full.preset == "ultrafast" && !full.keepsUp && full.expectedFramesPerSecond < 30, "\(full)")
        #expect(HEVCPresetChoice.choose(width: 1920, height: 1080, frameRate: rate, processorCount: 8).keepsUp)

        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let told = try run(movrecPath(), ["record", dir.file("a.mov"), "--video", "testsrc", "--size", "1920x1080", "--codec", "hevc",
                                          "--duration", "0.5"])
        #expect(told.status == 0, "\(told.error)")
        let processors = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        if processors <= 2 {
            #expect(told.error.contains("HEVC cannot keep up with 1920x1080 at 30 fps here"), "\(told.error)")
        } else {
            #expect(told.error.contains("HEVC preset"), "\(told.error)")
        }
        let chosen = try run(movrecPath(), ["record", dir.file("b.mov"), "--video", "testsrc", "--size", "640x480", "--codec", "hevc",
                                            "--duration", "0.5", "--overwrite"])
        #expect(chosen.error.contains("HEVC preset veryfast for 640x480 at 30 fps"), "\(chosen.error)")
        let given = try run(movrecPath(), ["record", dir.file("c.mov"), "--video", "testsrc", "--size", "640x480", "--codec", "hevc",
                                           "--preset", "ultrafast", "--duration", "0.5"])
        #expect(given.status == 0 && !given.error.contains("HEVC preset"), "\(given.error)")
    }

    /// `--codec` takes h264 or hevc, and each encoder's parameters only with its codec.
    @Test func codecOptionsAreCheckedAsUsage() throws {
        for arguments in [["--codec", "vp9"], ["--codec", "hevc", "--x264-params", "ref=2"], ["--x265-params", "ref=2"]] {
            let result = try run(movrecPath(), ["record", "/tmp/never.mov", "--video", "testsrc"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.error)")
        }
    }

    /// Every prefix of a real `hvcC`, and that record with bytes flipped, parses or throws
    /// `MovieFormatError`: never a crash or a hang.
    @Test func damagedRecordsAreTypedErrors() throws {
        let record = try hvcC(fixture("golden/hevc-bframes.mov"))
        #expect(try HEVCDecoderConfiguration(atomBody: record).atomBody == record, "the record round-trips")
        var refused = 0
        for length in 0..<record.count {
            do { _ = try HEVCDecoderConfiguration(atomBody: Array(record.prefix(length))) } catch { refused += 1 }
        }
        #expect(refused == record.count, "\(record.count - refused) prefixes parsed")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var damaged = record
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
            _ = try? HEVCDecoderConfiguration(atomBody: damaged)
            _ = try? AnnexBStream(annexB: [0, 0, 0, 1] + damaged.dropFirst(23))
        }
    }
}
