import Foundation
import Testing

/// The benchmark worker's cases, run for real at a small size: the harness's figures are only
/// as good as what these cases do. No timing is asserted here; the harness reports timings.
@Suite(.serialized) struct BenchmarkWorkerTests {
    func results(_ output: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 3, words[0] == "result", let value = Double(words[2]) { values[String(words[1])] = value }
        }
        return values
    }

    func optionString(_ path: String) throws -> String? {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let start = bytes.range(of: Data("x264 - core".utf8)) else { return nil }
        let text = String(decoding: bytes[start.lowerBound...].prefix { $0 != 0 }, as: UTF8.self)
        return text.range(of: "options: ").map { String(text[$0.upperBound...]) }
    }

    /// The worker, and one second of its test pattern at 320x240 written as a Y4M in `dir`.
    func patternInput(_ dir: TemporaryDirectory) throws -> (worker: String, input: String) {
        let worker = try builtProductPath("bench-worker")
        let input = dir.file("pattern.y4m")
        let made = try run(worker, ["pattern", "--seconds", "1", "--size", "320x240", "--output", input])
        #expect(made.status == 0, "\(made.error)")
        #expect(results(made.output)["frames"] == 30)
        return (worker, input)
    }

    /// The encode case through the public API gives x264 exactly the parameters the x264 CLI
    /// uses for the same preset and tune — what makes the speed comparison fair.
    @Test(arguments: [("ultrafast", true), ("veryfast", false), ("medium", false)])
    func encodeMatchesTheX264CommandLinesOptions(preset: String, zeroLatency: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (worker, input) = try patternInput(dir)
        let tune = zeroLatency ? ["--tune", "zerolatency"] : []
        let encoded = try run(worker, ["encode", "--input", input, "--output", dir.file("api.mov"), "--preset", preset,
                                       "--crf", "23", "--keyint", "250"] + tune)
        #expect(encoded.status == 0, "\(encoded.error)")
        #expect(results(encoded.output)["frames"] == 30)
        #expect(results(encoded.output)["dropped"] == 0)
        let cli = try run("x264", ["--quiet", "--no-progress", "--preset", preset, "--crf", "23"] + tune + ["-o", dir.file("cli.264"), input])
        #expect(cli.status == 0, "\(cli.error)")
        let ours = try #require(try optionString(dir.file("api.mov")), "the movie carries x264's options SEI")
        #expect(ours == (try optionString(dir.file("cli.264"))))
        #expect(try decodeAllFrames(dir.file("api.mov")).videoFrames == 30)
    }

    /// Case a2: a YUYV replay through the public API gives x264 the x264 CLI's parameters and
    /// reports how long converted buffers were held; the conversion case times both converters
    /// on the same pictures; bench-tjdecode decodes every JPEG of a stream.
    @Test func cameraFormatCasesRecordConvertAndDecode() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let worker = try builtProductPath("bench-worker")
        let yuyv = dir.file("in.yuyv"), y4m = dir.file("in.y4m"), mjpeg = dir.file("in.mjpeg")
        for arguments in [["-pix_fmt", "yuyv422", "-f", "rawvideo", yuyv], ["-pix_fmt", "yuv420p", y4m],
                          ["-pix_fmt", "yuvj422p", "-f", "mjpeg", mjpeg]] {
            let made = try run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                                          "-frames:v", "12"] + arguments)
            #expect(made.status == 0, "\(made.error)")
        }
        let replayed = try run(worker, ["replay", "--input", yuyv, "--width", "320", "--height", "240", "--output",
                                        dir.file("api.mov"), "--preset", "ultrafast", "--crf", "23", "--keyint", "250"])
        #expect(replayed.status == 0, "\(replayed.error)")
        let figures = results(replayed.output)
        #expect(figures["frames"] == 12 && figures["dropped"] == 0)
        #expect((figures["holdMeanMs"] ?? 0) > 0 && (figures["holdMaxMs"] ?? 0) >= (figures["holdMeanMs"] ?? .infinity))
        let cli = try run("x264", ["--quiet", "--no-progress", "--preset", "ultrafast", "--crf", "23", "-o", dir.file("cli.264"), y4m])
        #expect(cli.status == 0, "\(cli.error)")
        #expect(try optionString(dir.file("api.mov")) == (try optionString(dir.file("cli.264"))))

        let converted = try run(worker, ["convert", "--input", yuyv, "--width", "320", "--height", "240", "--rounds", "3"])
        #expect(converted.status == 0, "\(converted.error)")
        let times = results(converted.output)
        for name in ["stageMs", "v4lconvertMs", "stageWarmMs", "v4lconvertWarmMs"] {
            #expect((times[name] ?? 0) > 0, "\(name) in \(converted.output)")
        }
        // ffmpeg's 4:2:2 JPEGs (2x2 luma, 1x2 chroma) are what libv4lconvert refuses.
        let jpegs = try run(worker, ["convert", "--input", mjpeg, "--width", "320", "--height", "240", "--rounds", "1"])
        #expect(jpegs.status == 0 && (results(jpegs.output)["stageMs"] ?? 0) > 0, "\(jpegs.error)")
        #expect(jpegs.output.contains("refused") && results(jpegs.output)["v4lconvertMs"] == nil, "\(jpegs.output)")

        let decoded = try run(try builtProductPath("bench-tjdecode"), [mjpeg])
        #expect(decoded.status == 0 && decoded.output.contains("result pictures 12"), "\(decoded.output) \(decoded.error)")
    }

    /// Case e's audio reference: the worker writes the tone a live recording records as a WAV
    /// that ffmpeg's AAC encoder takes, and the file-size line records the pattern and tone with
    /// each codec.
    @Test func toneAndFileSizeCasesWriteWhatTheHarnessMeasures() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let worker = try builtProductPath("bench-worker")
        let made = try run(worker, ["tone", "--seconds", "1", "--output", dir.file("tone.wav")])
        #expect(made.status == 0, "\(made.error)")
        let wav = try ffprobeStreams(dir.file("tone.wav")).first
        #expect(wav?.codec_name == "pcm_s16le" && wav?.sample_rate == "48000" && wav?.channels == 2 && wav?.duration == "1.000000")
        var sizes: [String: Double] = [:]
        for codec in ["lpcm", "aac"] {
            let path = dir.file("\(codec).mov")
            let recorded = try run(worker, ["size", "--seconds", "1", "--audio", codec, "--output", path])
            #expect(recorded.status == 0, "\(recorded.error)")
            sizes[codec] = results(recorded.output)["fileBytes"]
            let audio = try ffprobeStreams(path).first { $0.codec_type == "audio" }
            #expect(audio?.codec_name == (codec == "aac" ? "aac" : "pcm_s16le"))
            #expect(Double(try #require(sizes[codec])) == Double(try Data(contentsOf: URL(fileURLWithPath: path)).count))
        }
        // One second of 48 kHz stereo LPCM is 192,000 bytes, AAC at 128 kbit/s about 16,000 (the
        // tone, read ahead of the video, leaves up to half a second more of either in the file).
        let saved = (sizes["lpcm"] ?? 0) - (sizes["aac"] ?? 0)
        #expect(saved > 150_000, "LPCM \(sizes["lpcm"] ?? 0) bytes, AAC \(sizes["aac"] ?? 0)")
    }

    /// Case h: the worker records live into segments, switching as often as asked, and reports
    /// each switch's cost on the writing thread.
    @Test func segmentsCaseSwitchesAndReportsTheCost() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let worker = try builtProductPath("bench-worker")
        let recorded = try run(worker, ["segments", "--switches", "5", "--output", dir.file("s-%03d.mov")])
        #expect(recorded.status == 0, "\(recorded.error)")
        let values = results(recorded.output)
        #expect(values["segments"] == 6 && values["dropped"] == 0)
        #expect((values["switchMedianMs"] ?? 0) > 0 && (values["switchMaxMs"] ?? 0) >= (values["switchMedianMs"] ?? .infinity))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 6)
    }

    /// Case e's reference: x264 alone, given the pattern's frames on a real-time schedule through
    /// a pipe, encodes every one with the live recording's options, and the worker reports x264's
    /// own CPU time.
    @Test func pacedX264GetsEveryFrameInRealTime() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (worker, input) = try patternInput(dir)
        let started = Date()
        let paced = try run(worker, ["paced", "--input", input, "--fps", "30", "--", try toolPath("x264"), "--quiet", "--no-progress",
                                     "--preset", "veryfast", "--crf", "23", "--demuxer", "y4m", "-o", dir.file("paced.264"), "-"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(paced.status == 0, "\(paced.error)")
        let values = results(paced.output)
        #expect(values["frames"] == 30)
        #expect((values["childCPU"] ?? 0) > 0, "x264's CPU time is reported")
        #expect(elapsed >= 29.0 / 30, "30 frames 1/30 s apart take at least 29/30 s; took \(elapsed) s")
        #expect(try decodeAllFrames(dir.file("paced.264")).videoFrames == 30)
        let batch = try run("x264", ["--quiet", "--no-progress", "--preset", "veryfast", "--crf", "23", "-o", dir.file("batch.264"), input])
        #expect(batch.status == 0, "\(batch.error)")
        #expect(try optionString(dir.file("paced.264")) == (try optionString(dir.file("batch.264"))))
    }

    /// Two minutes of synthetic samples through the real writer, with the media left as a
    /// hole: a movie ffprobe reads with every frame and the exact duration.
    @Test(arguments: [false, true])
    func stopAndMemoryWritesARealMovie(fragmented: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("long.mov")
        let result = try run(try builtProductPath("bench-worker"),
                             ["stop-memory", "--seconds", "120", "--output", path] + (fragmented ? [] : ["--no-fragments"]))
        #expect(result.status == 0, "\(result.error)")
        let values = results(result.output)
        #expect(values["finalizeSeconds"].map { $0 > 0 } == true)
        #expect(values["videoSamples"] == 3600)
        let streams = try ffprobeStreams(path)
        let video = try #require(streams.first { $0.codec_type == "video" })
        #expect(video.nb_frames == "3600")
        #expect(video.duration.flatMap(Double.init).map { abs($0 - 120) < 0.05 } == true, "\(video.duration ?? "")")
        #expect(streams.contains { $0.codec_type == "audio" && $0.sample_rate == "48000" })
    }

    /// Case m at 320x240 and 1 Mbit/s for two minutes: the encoder held the rate, the pre-roll
    /// held 10–12 s of it (10 s and up to one 2 s group of pictures) with the PCM beside it,
    /// and the memory and clip-begin figures are there.
    @Test func preRollCaseHoldsTenSecondsAndAGroupOfPictures() throws {
        let result = try run(try builtProductPath("bench-worker"), ["preroll", "--size", "320x240", "--kbps", "1000", "--seconds", "120"])
        #expect(result.status == 0, "\(result.error)")
        let values = results(result.output)
        let kbps = try #require(values["encodedKbps"])
        #expect(abs(kbps - 1000) < 100, "\(kbps) kbit/s")
        let perSecond = kbps * 1000 / 8 + 48_000 * 4
        let held = try #require(values["preRollBytesMax"]) / perSecond
        #expect(held >= 10 && held <= 12.3, "the pre-roll held \(held) s")
        #expect(values["rssAfterMinute"].map { $0 > 0 } == true && values["rssAtEnd"].map { $0 > 0 } == true, "\(values)")
        #expect(values["beginClipSeconds"].map { $0 > 0 } == true, "\(values)")
    }

    /// The harness starts every measured run through `bench-spawn`, which reports the child's own
    /// peak RSS. A child started straight from a process reports at least that process's peak
    /// (Linux keeps the peak of the memory a process ran in before exec), which had clamped
    /// every small figure of the harness to its own 15 MiB.
    @Test func spawnerReportsTheChildsOwnPeakMemory() throws {
        let spawner = try builtProductPath("bench-spawn")
        func report(_ command: [String]) throws -> [String: Double] {
            // Reports to standard output; the child gets no standard output.
            let result = try run(spawner, ["1"] + command)
            #expect(result.status == 0, "\(result.error)")
            let words = result.output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
            var fields: [String: Double] = [:]
            for pair in stride(from: 0, to: words.count - 1, by: 2) { fields[words[pair]] = Double(words[pair + 1]) }
            return fields
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let idle = try report(["true"])
        #expect(idle["status"] == 0)
        let idlePeak = try #require(idle["maxrss"])  // KiB
        // About `true`'s own megabyte: a forked child carries only the spawner's anonymous memory
        // into exec (posix_spawn from the spawner passed on its whole 4–5 MiB).
        #expect(idlePeak < Double(3 << 10), "a child doing nothing reported \(idlePeak) KiB")
        #expect(Double(usage.ru_maxrss) > idlePeak + Double(8 << 10), "this test process (\(usage.ru_maxrss) KiB) is bigger than that")
        // dd fills a 64 MiB buffer from /dev/zero: its peak is at least that.
        let big = try report(["dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1", "status=none"])
        #expect(big["status"] == 0)
        #expect((big["maxrss"] ?? 0) >= Double(64 << 10), "\(big)")
        #expect((big["wall"] ?? 0) > 0 && big["user"] != nil && big["system"] != nil, "\(big)")
        #expect(try report(["false"])["status"] == 256)  // exit status 1, as wait4 gives it
        #expect(try run(spawner, ["1", "/nonexistent/program"]).output == "failed \(ENOENT)\n")
    }

    /// Rotation propagation reports its distribution over real outputs.
    @Test func rotationReportsEveryChange() throws {
        let result = try run(try builtProductPath("bench-worker"), ["rotation", "--changes", "200"])
        #expect(result.status == 0, "\(result.error)")
        let values = results(result.output)
        #expect(values["changes"] == 200)
        let median = try #require(values["median"]), p99 = try #require(values["p99"]), worst = try #require(values["max"])
        #expect(median > 0 && median <= p99 && p99 <= worst)
    }
}
