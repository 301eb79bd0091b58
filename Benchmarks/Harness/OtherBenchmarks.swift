import Glibc

/// b–f: muxing, stopping and memory, rotation, live headroom and start-up.
extension Harness {
    // MARK: b. Mux only

    /// Rounds per mux cell: three times the other cases'. A mux run takes 10–35 ms, where a
    /// hiccup of the host's is a large share of one run and the per-round ratios of a cell spread
    /// by ±0.1; a median of 33 is about 40% less noisy than one of 11 and costs a minute more.
    var muxRounds: Int { 3 * runs }

    mutating func muxBenchmark() throws {
        print("\nb. Mux only (already-encoded H.264 + 48 kHz stereo PCM → .mov on disk) vs cp of the same bytes, medians of \(muxRounds) alternated runs (\((Self.confirmationFactor + 1) * muxRounds) in a cell measured again); speed = cp's wall ÷ this wall")
        let shapes: [(name: String, size: String, preset: String, crf: Int, frames: Int)] = [
            ("300 large frames", "1920x1080", "ultrafast", 12, 300),
            ("9000 small frames", "640x360", "veryfast", 30, 9000),
        ]
        var cellsJSON: [JSON] = []
        var worst = (ratio: Double.infinity, cell: "")
        var confirmed: [String] = []
        print("  " + pad("shape", 30) + pad("contender", 12) + padLeft("wall s", 8) + padLeft("cpu s", 8) + padLeft("RSS MiB", 9)
              + padLeft("vs cp", 8))
        for shape in shapes {
            let seconds = shape.frames / 30
            let video = "\(work)/mux-\(shape.frames).264", audio = "\(work)/mux-\(shape.frames).wav"
            let copySource = "\(work)/mux-\(shape.frames).bytes"
            // GStreamer 1.22 cannot timestamp a raw Annex-B stream for qtmux ("Buffer has no
            // PTS"), so it remuxes the same samples from a .mov made by ffmpeg.
            let gstreamerInput = "\(work)/mux-\(shape.frames)-gstreamer-in.mov"
            if !exists(copySource) || !exists(gstreamerInput) {
                try shell("ffmpeg -y -loglevel error -f lavfi -i testsrc2=size=\(shape.size):rate=30 -frames:v \(shape.frames) "
                          + "-c:v libx264 -preset \(shape.preset) -crf \(shape.crf) \(video) && "
                          + "ffmpeg -y -loglevel error -f lavfi -i sine=frequency=1000:sample_rate=48000 -ac 2 -t \(seconds) "
                          + "-c:a pcm_s16le \(audio) && cat \(video) \(audio) > \(copySource) && "
                          + "ffmpeg -y -loglevel error -r 30 -i \(video) -i \(audio) -c copy \(gstreamerInput)", scratch: scratch)
            }
            let bytes = (fileSize(video) ?? 0) + (fileSize(audio) ?? 0)
            for fragmented in [false, true] {
                let cell = "\(shape.name)\(fragmented ? ", fragments" : "")"
                let out = "\(work)/mux-out"
                let contenders: [(name: String, command: [String])] = [
                    ("movrec mux", [movrec, "mux", out + ".mov", "--video", video, "--audio", audio, "--fps", "30"]
                        + (fragmented ? ["--fragment-interval", "1"] : [])),
                    ("cp", ["cp", copySource, out + ".bytes"]),
                    ("ffmpeg", ["ffmpeg", "-y", "-loglevel", "error", "-r", "30", "-i", video, "-i", audio, "-c", "copy"]
                        + (fragmented ? ["-movflags", "+frag_keyframe+empty_moov", "-frag_duration", "1000000"] : [])
                        + [out + "-ffmpeg.mov"]),
                    ("gstreamer", ["gst-launch-1.0", "-q", "filesrc", "location=\(gstreamerInput)", "!", "qtdemux", "name=demux",
                                   "demux.video_0", "!", "queue", "!", "h264parse", "!", "qtmux", "name=mux"]
                        + (fragmented ? ["fragment-duration=1000"] : [])
                        + ["!", "filesink", "location=\(out)-gstreamer.mov", "demux.audio_0", "!", "queue", "!", "mux."]),
                ]
                // Every contender starts with nothing of the harness's waiting to be written back:
                // the freshly generated inputs and each removed output (its freed blocks are a
                // journal commit) would otherwise be written back during whichever run comes next.
                sync()
                let clean = { (_: String) in
                    for suffix in [".mov", ".bytes", "-ffmpeg.mov", "-gstreamer.mov"] { remove(out + suffix) }
                    sync()
                }
                var measured = try alternate(contenders, rounds: muxRounds, after: clean)
                // As in case a: a figure below the target is measured again before it counts, every
                // contender alternating for `confirmationFactor` times as many rounds more (all of
                // them: with `movrec mux` and `cp` alone, back to back, both figures of a trial run
                // fell by 0.05), and the figures are medians over all paired runs.
                let first = Self.speedRatio(measured["movrec mux"]!, over: measured["cp"]!)
                var moreRounds: Int?
                if first < 0.8 {
                    let rounds = Self.confirmationFactor * muxRounds
                    print("    \(cell): movrec mux \(fixed(first, 3))× cp after \(muxRounds) runs; measuring the cell again for \(rounds) more")
                    try measureAgain(contenders, rounds: rounds, into: &measured, after: clean)
                    moreRounds = rounds
                }
                var contendersJSON: [(String, JSON)] = []
                let copy = measured["cp"]!
                for (name, _) in contenders {
                    let runs = measured[name]!
                    let ratio = Self.speedRatio(runs, over: copy)
                    print("  " + pad(name == "movrec mux" ? cell : "", 30) + pad(name, 12) + padLeft(fixed(runs.map(\.wall).median, 3), 8)
                          + padLeft(fixed(runs.map(\.cpu).median, 3), 8) + padLeft(fixed(runs.map(\.peakRSS).median / 1_048_576, 1), 9)
                          + padLeft(fixed(ratio, 3), 8)
                          + (moreRounds != nil && name == "movrec mux" ? "   over \(runs.count) runs (the first \(muxRounds): \(fixed(first, 3)))" : ""))
                    var entry = Self.summary(runs)
                    if case .object(var members) = entry {
                        members.append(("speedVsCopy", .number(ratio)))
                        if moreRounds != nil, name == "movrec mux" { members.append(("speedVsCopyFirstRuns", .number(first))) }
                        entry = .object(members)
                    }
                    contendersJSON.append((name, entry))
                    if name == "movrec mux", ratio < worst.ratio { worst = (ratio, cell) }
                }
                cellsJSON.append(.object([("cell", .string(cell)), ("frames", .number(Double(shape.frames))),
                                          ("inputBytes", .number(Double(bytes))), ("fragments", .bool(fragmented)),
                                          ("contenders", .object(contendersJSON))]
                                          + (moreRounds.map { [("confirmation", JSON.object([("moreRuns", .number(Double($0)))]))] } ?? [])))
                if moreRounds != nil { confirmed.append(cell) }
            }
        }
        sections.append(("mux", .array(cellsJSON)))
        check("b", "mux ≥ 0.8× cp in both shapes", worst.ratio >= 0.8, "worst \(fixed(worst.ratio, 3))× (\(worst.cell))"
              + (confirmed.isEmpty ? "" : "; measured again with \(Self.confirmationFactor * muxRounds) more runs, having been below 0.8× "
                 + "after \(muxRounds): \(confirmed.joined(separator: ", "))"))
    }

    // MARK: c. Stop and memory

    mutating func stopAndMemoryBenchmark() throws {
        print("\nc. Stop and memory: synthetic 30 fps H.264-sized samples + 48 kHz stereo PCM through the real writer")
        print("  " + pad("recording", 26) + padLeft("finalize ms", 12) + padLeft("peak RSS MiB", 14) + padLeft("run s", 8))
        var rowsJSON: [JSON] = []
        var worstFinalize = 0.0, worstGrowth = -Double.infinity
        for fragmented in [true, false] {
            var rss: [Double: Double] = [:]
            for (label, seconds) in [("1 minute", 60.0), ("1 hour", 3600.0), ("10 hours", 36000.0)] {
                let out = "\(work)/stop-memory.mov"
                let command = [worker, "stop-memory", "--seconds", String(Int(seconds)), "--output", out]
                    + (fragmented ? [] : ["--no-fragments"])
                let measured = try alternate([("worker", command)], rounds: seconds > 3600 && quick ? 3 : runs) { _ in remove(out) }
                let runs = measured["worker"]!
                let finalize = runs.compactMap { $0.results["finalizeSeconds"] }.median
                let peak = runs.map(\.peakRSS).median
                rss[seconds] = peak
                let row = "\(label)\(fragmented ? ", fragments" : ", no fragments")"
                print("  " + pad(row, 26) + padLeft(fixed(finalize * 1000, 2), 12) + padLeft(fixed(peak / 1_048_576, 1), 14)
                      + padLeft(fixed(runs.map(\.wall).median, 2), 8))
                rowsJSON.append(.object([("recording", .string(row)), ("seconds", .number(seconds)),
                                         ("fragments", .bool(fragmented)), ("finalizeSeconds", .number(finalize)),
                                         ("finalizeSecondsAll", .array(runs.compactMap { $0.results["finalizeSeconds"] }.map(JSON.number))),
                                         ("peakRSSMiB", .number(peak / 1_048_576)), ("wallSeconds", .number(runs.map(\.wall).median))]))
                if seconds == 36000 { worstFinalize = max(worstFinalize, finalize) }
            }
            worstGrowth = max(worstGrowth, rss[36000]! - rss[60]!)
        }
        sections.append(("stopAndMemory", .array(rowsJSON)))
        check("c", "finalizing a 10-hour recording ≤ 50 ms", worstFinalize <= 0.05, "\(fixed(worstFinalize * 1000, 2)) ms (worse mode)")
        check("c", "RSS(10 h) − RSS(1 min) ≤ 8 MiB", worstGrowth <= 8 * 1_048_576, "\(signedMiB(worstGrowth)) (worse mode)")
    }

    // MARK: d. Rotation propagation

    mutating func rotationBenchmark() throws {
        print("\nd. Rotation propagation: gravity change → every output (movie, video data, photo) turned, 10,000 changes per run")
        let measured = try alternate([("worker", [worker, "rotation", "--changes", "10000"])])
        let runs = measured["worker"]!
        let median = runs.compactMap { $0.results["median"] }.median
        let p99 = runs.compactMap { $0.results["p99"] }.median
        let worst = runs.compactMap { $0.results["max"] }.max() ?? .nan
        print("  median \(fixed(median * 1e6, 1)) µs, p99 \(fixed(p99 * 1e6, 1)) µs (median of \(runs.count) runs), worst single change \(fixed(worst * 1e3, 2)) ms")
        sections.append(("rotation", .object([("changesPerRun", .number(10_000)), ("medianSeconds", .number(median)),
                                              ("p99Seconds", .number(p99)), ("maxSeconds", .number(worst)),
                                              ("p99SecondsAll", .array(runs.compactMap { $0.results["p99"] }.map(JSON.number)))])))
        check("d", "rotation propagation p99 ≤ 1 ms", p99 <= 0.001, "p99 \(fixed(p99 * 1e6, 1)) µs")
    }

    // MARK: e. Live headroom

    mutating func liveBenchmark() throws {
        let seconds = quick ? 5 : 10
        print("\ne. Live headroom: 720p30 veryfast and AAC from the test pattern and a tone on a clock 50 ppm fast (measured and resampled, as a microphone's), \(seconds) s per run, vs x264 alone"
              + " on the same frames given in real time (and as fast as it can take them) plus ffmpeg's AAC encoder alone on the same audio")
        let pattern = "\(work)/pattern-720p-\(seconds)s.y4m"
        if !exists(pattern) {
            _ = try run([worker, "pattern", "--seconds", String(seconds), "--size", "1280x720", "--output", pattern], scratch: scratch)
        }
        let tone = "\(work)/tone-48k-stereo-\(seconds)s.wav"
        if !exists(tone) { _ = try run([worker, "tone", "--seconds", String(seconds), "--output", tone], scratch: scratch) }
        let out = "\(work)/live"
        var options: [String: String] = [:]
        let measured = try alternate([
            ("live", [worker, "live", "--seconds", String(seconds), "--size", "1280x720", "--preset", "veryfast",
                      "--keyint", "250", "--audio", "aac-drifting", "--output", out + ".mov"]),
            // x264 alone given the frames one every 1/30 s through a pipe, as the live recording
            // gets them; only x264's own CPU time is counted (the worker reports it).
            ("x264 paced", [worker, "paced", "--input", pattern, "--fps", "30", "--", "x264", "--quiet", "--no-progress",
                            "--preset", "veryfast", "--crf", "23", "--demuxer", "y4m", "-o", out + "-paced.264", "-"]),
            ("x264", ["x264", "--quiet", "--no-progress", "--preset", "veryfast", "--crf", "23", "-o", out + ".264", pattern]),
            // ffmpeg's native AAC encoder, the library's, at the recording's 128 kbit/s.
            ("ffmpeg aac", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", tone, "-c:a", "aac", "-b:a", "128k", out + ".m4a"]),
        ], rounds: quick ? 3 : runs) { name in
            let path = out + (name == "live" ? ".mov" : name == "x264" ? ".264" : name == "ffmpeg aac" ? ".m4a" : "-paced.264")
            if name == "ffmpeg aac" { remove(path); return }
            if options[name] == nil { options[name] = x264Options(inFile: path) ?? "(no x264 SEI)" }
            remove(path)
        }
        let live = measured["live"]!, x264 = measured["x264"]!, paced = measured["x264 paced"]!, aac = measured["ffmpeg aac"]!
        let dropped = live.compactMap { $0.results["dropped"] }.max() ?? .nan
        let recorded = live.compactMap { $0.results["recordedSeconds"] }.median
        let oursPerRun = live.map { $0.cpu / ($0.results["recordedSeconds"] ?? .nan) }
        let alonePerRun = x264.map { $0.cpu / Double(seconds) }
        let pacedPerRun = paced.map { ($0.results["childCPU"] ?? .nan) / Double(seconds) }
        let aacPerRun = aac.map { $0.cpu / Double(seconds) }
        // The reference: x264 given the frames in real time plus ffmpeg encoding the same audio,
        // each alone.
        let referencePerRun = zip(pacedPerRun, aacPerRun).map { $0 + $1 }
        let late = paced.compactMap { $0.results["lateSeconds"] }.max() ?? .nan
        let ours = oursPerRun.median, alone = alonePerRun.median, alonePaced = pacedPerRun.median
        // Like a's and b's ratios: each round's pair, then the median, so a slow spell of the
        // machine that falls on one round weighs on both sides of that round's ratio. The target
        // compares with x264 given the frames in real time, as the recording gets them: x264 in
        // a batch keeps its threads busy and costs from 0.30 to 0.48 CPU s per second from run to
        // run here, while the same frames 1/30 s apart cost it more and vary less.
        let ratio = zip(oursPerRun, referencePerRun).map { $0 / $1 }.median
        let ratioToBatch = zip(oursPerRun, alonePerRun).map { $0 / $1 }.median
        let same = options["live"] == options["x264"] && options["x264 paced"] == options["x264"]
        print("  recorded \(fixed(recorded, 2)) s, dropped \(Int(dropped)) (worst run); CPU per recorded second (medians): library \(fixed(ours, 3)) s, "
              + "x264 alone in real time \(fixed(alonePaced, 3)) s (last frame out \(fixed(late * 1000, 1)) ms late at worst), in a batch \(fixed(alone, 3)) s; "
              + "ffmpeg's AAC alone \(fixed(aacPerRun.median, 4)) s; "
              + "per-round ratios \(fixed(ratio, 3))× and \(fixed(ratioToBatch, 3))×")
        sections.append(("live", .object([("seconds", .number(Double(seconds))), ("recordedSeconds", .number(recorded)),
                                          ("droppedWorst", .number(dropped)), ("cpuPerSecond", .number(ours)),
                                          ("x264PacedCPUPerSecond", .number(alonePaced)), ("ratio", .number(ratio)),
                                          ("ffmpegAACCPUPerSecond", .number(aacPerRun.median)),
                                          ("ffmpegAACCPUPerSecondAll", .array(aacPerRun.map(JSON.number))),
                                          ("ratioOfMedians", .number(ours / (alonePaced + aacPerRun.median))),
                                          ("pacedLateSecondsWorst", .number(late)),
                                          ("x264CPUPerSecond", .number(alone)), ("ratioToBatch", .number(ratioToBatch)),
                                          ("cpuPerSecondAll", .array(oursPerRun.map(JSON.number))),
                                          ("x264PacedCPUPerSecondAll", .array(pacedPerRun.map(JSON.number))),
                                          ("x264CPUPerSecondAll", .array(alonePerRun.map(JSON.number))),
                                          ("peakRSSMiB", .number(live.map(\.peakRSS).median / 1_048_576)),
                                          ("optionsIdentical", .bool(same))])))
        check("e", "live: 0 dropped frames", dropped == 0, "\(Int(dropped)) dropped in the worst run")
        check("e", "live: CPU within 5% of x264 alone (given the frames in real time) plus ffmpeg's AAC alone", ratio <= 1.05 && same,
              "\(fixed(ratio, 3))× (\(fixed(ratioToBatch, 3))× of x264 in a batch)"
              + (same ? "" : "; x264 options differ: \(options["live"] ?? "") / \(options["x264 paced"] ?? "") vs \(options["x264"] ?? "")"))
    }

    /// The size of 60 s of the test pattern and the tone recorded with the default settings,
    /// with LPCM and with AAC audio (once each: the encoders are deterministic).
    mutating func fileSizeLine() throws {
        let seconds = quick ? 10 : 60
        var sizes: [String: Double] = [:]
        for codec in ["lpcm", "aac"] {
            let path = "\(work)/size-\(codec).mov"
            let m = try run([worker, "size", "--seconds", String(seconds), "--audio", codec, "--output", path], scratch: scratch)
            sizes[codec] = m.results["fileBytes"] ?? .nan
            remove(path)
        }
        let lpcm = sizes["lpcm"]!, aac = sizes["aac"]!
        print("  file size, \(seconds) s of the test pattern (720p30 veryfast CRF 23) and the tone: LPCM \(fixed(lpcm / 1_048_576, 1)) MiB, "
              + "AAC \(fixed(aac / 1_048_576, 1)) MiB (\(fixed(aac / lpcm, 3))×)")
        sections.append(("fileSize", .object([("seconds", .number(Double(seconds))), ("lpcmBytes", .number(lpcm)),
                                              ("aacBytes", .number(aac)), ("ratio", .number(aac / lpcm))])))
    }

    // MARK: f. Start-up

    mutating func startupBenchmark() throws {
        print("\nf. Start-up: process start to a file with the first encoded frame (one 720p frame, ultrafast)")
        let input = "\(work)/one-frame-720p.y4m"
        if !exists(input) {
            try shell("ffmpeg -y -loglevel error -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 1 -pix_fmt yuv420p \(input)",
                      scratch: scratch)
        }
        let out = "\(work)/startup"
        let measured = try alternate([
            ("movrec", [movrec, "record", out + ".mov", "--video", input, "--audio", "none", "--preset", "ultrafast", "--quiet", "--overwrite"]),
            ("x264", ["x264", "--quiet", "--no-progress", "--preset", "ultrafast", "-o", out + ".264", input]),
            ("ffmpeg", ["ffmpeg", "-y", "-loglevel", "error", "-i", input, "-c:v", "libx264", "-preset", "ultrafast", out + ".mov"]),
        ]) { _ in
            remove(out + ".mov")
            remove(out + ".264")
        }
        var json: [(String, JSON)] = []
        for name in ["movrec", "x264", "ffmpeg"] {
            let runs = measured[name]!
            print("  \(pad(name, 8)) \(fixed(runs.map(\.wall).median * 1000, 1)) ms wall, \(fixed(runs.map(\.cpu).median * 1000, 1)) ms CPU, \(mib(runs.map(\.peakRSS).median))")
            json.append((name, Self.summary(runs)))
        }
        sections.append(("startup", .object(json)))
        let ours = measured["movrec"]!.map(\.wall).median, x264 = measured["x264"]!.map(\.wall).median
        check("f", "start-up ≤ the x264 CLI's", ours <= x264, "\(fixed(ours * 1000, 1)) ms vs \(fixed(x264 * 1000, 1)) ms")
    }
}

extension Harness {
    // MARK: g. What durability costs (issue 5's question, no target)

    mutating func durabilityBenchmark() throws {
        print("\ng. Durability: the same recording (720p ultrafast, Y4M) with 1 s fragments, with fragments synced to disk, and as one movie at the end")
        let cell = EncodeCell(width: 1280, height: 720, preset: "ultrafast", zeroLatency: false, grain: false, frames: 240)
        let input = try encodeInput(cell)
        let out = "\(work)/durability.mov"
        let common = [movrec, "record", out, "--video", input, "--audio", "none", "--preset", "ultrafast", "--quiet", "--overwrite"]
        let variants: [(name: String, command: [String])] = [
            ("fragments", common), ("fragments + sync", common + ["--sync"]), ("no fragments", common + ["--no-fragments"]),
        ]
        let measured = try alternate(variants) { _ in remove(out) }
        let reference = measured["no fragments"]!
        var json: [(String, JSON)] = []
        for (name, _) in variants {
            let runs = measured[name]!
            let ratio = Self.speedRatio(runs, over: reference)
            print("  \(pad(name, 18)) \(fixed(runs.map(\.wall).median, 3)) s wall, \(fixed(runs.map(\.cpu).median, 3)) s CPU, speed \(fixed(ratio, 3))× of no fragments")
            var entry = Self.summary(runs)
            if case .object(var members) = entry {
                members.append(("speedVsNoFragments", .number(ratio)))
                entry = .object(members)
            }
            json.append((name, entry))
        }
        sections.append(("durability", .object(json)))
    }

    // MARK: h. Segment switching

    /// A live 720p30 veryfast recording of the test pattern and the tone that switches files
    /// 100 times (a segment every 0.2 s): dropped frames, and what each switch costs the writing
    /// thread (finishing the old file: last fragment, movie atom, flush).
    mutating func segmentBenchmark() throws {
        let switches = quick ? 20 : 100
        print("\nh. Segment switching: 720p30 veryfast and AAC live, \(switches) switches (a segment every 0.2 s)")
        let directory = "\(work)/segments"
        var runsDone: [Measurement] = []
        for _ in 0..<(quick ? 1 : 3) {
            _ = try? run(["rm", "-rf", directory], scratch: scratch)
            mkdir(directory, 0o755)
            runsDone.append(try run([worker, "segments", "--switches", String(switches), "--output", directory + "/seg-%03d.mov"],
                                    scratch: scratch))
        }
        _ = try? run(["rm", "-rf", directory], scratch: scratch)
        let dropped = runsDone.compactMap { $0.results["dropped"] }.max() ?? .nan
        let segments = runsDone.compactMap { $0.results["segments"] }.min() ?? .nan
        let median = runsDone.compactMap { $0.results["switchMedianMs"] }.median
        let p99 = runsDone.compactMap { $0.results["switchP99Ms"] }.max() ?? .nan
        let worst = runsDone.compactMap { $0.results["switchMaxMs"] }.max() ?? .nan
        print("  \(Int(segments)) files per run, dropped \(Int(dropped)) (worst run); writing-thread time per switch: median \(fixed(median, 2)) ms, "
              + "p99 \(fixed(p99, 2)) ms, max \(fixed(worst, 2)) ms; CPU per recorded second \(fixed(runsDone.map { $0.cpu / (Double(switches + 1) * 0.2) }.median, 3)) s")
        sections.append(("segments", .object([("switches", .number(Double(switches))), ("files", .number(segments)),
                                              ("droppedWorst", .number(dropped)), ("switchMedianMs", .number(median)),
                                              ("switchP99Ms", .number(p99)), ("switchMaxMs", .number(worst))])))
        check("h", "segments: 0 dropped frames over \(switches) switches", dropped == 0 && segments == Double(switches + 1),
              "\(Int(dropped)) dropped in the worst run, \(Int(segments)) files")
    }
}
