/// a2. Camera formats: recorded YUYV, NV12 and MJPEG buffers through the library's replay source
/// (the path a V4L2 buffer takes) against ffmpeg and GStreamer reading the same files, with the
/// x264 CLI on the same pictures already converted to I420 as the limit (for MJPEG, the faster of
/// that plus TurboJPEG decoding the JPEGs alone, and GStreamer); then the conversion alone, the
/// new stage against libv4lconvert.
extension Harness {
    struct CameraCell {
        var format: String  // yuyv, nv12 or mjpeg: the replay file's extension
        var width: Int
        var height: Int
        var preset: String
        var frames: Int
        var name: String { "\(format.uppercased()) \(height)p \(preset)" }
        var isJPEG: Bool { format == "mjpeg" }
    }

    /// The cells, with frames for about a second of the x264 CLI's time, as in case a.
    static func cameraCells(quick: Bool) -> [CameraCell] {
        let frames: [String: (Int, Int)] = ["ultrafast": (240, 110), "veryfast": (120, 50)]
        let shapes: [(String, Int, Int)] = quick ? [("yuyv", 1280, 720), ("mjpeg", 1280, 720)]
            : [("yuyv", 1280, 720), ("yuyv", 1920, 1080), ("mjpeg", 1280, 720), ("mjpeg", 1920, 1080), ("nv12", 1920, 1080)]
        return shapes.flatMap { format, width, height in
            (quick ? ["ultrafast"] : ["ultrafast", "veryfast"]).map { preset in
                CameraCell(format: format, width: width, height: height, preset: preset,
                           frames: height == 720 ? frames[preset]!.0 : frames[preset]!.1)
            }
        }
    }

    /// The replay file of a cell and the same pictures as I420 in Y4M, made once per harness run:
    /// testsrc2 as raw YUYV or NV12, or as 4:2:2 JPEGs the way webcams send them (2×1 luma
    /// sampling, quality 90, by cjpeg; ffmpeg's own MJPEG encoder writes 2×2 luma with 1×2 chroma).
    func cameraInputs(_ cell: CameraCell) throws -> (replay: String, y4m: String) {
        let base = "\(work)/camera-\(cell.width)x\(cell.height)-\(cell.frames)"
        let replay = "\(base).\(cell.format)", y4m = "\(base)-\(cell.format).y4m"
        let source = "-f lavfi -i testsrc2=size=\(cell.width)x\(cell.height):rate=30 -frames:v \(cell.frames)"
        if !exists(replay) {
            if cell.isJPEG {
                let frames = "\(scratch)/ppm"
                try shell("rm -rf \(frames) && mkdir -p \(frames) && ffmpeg -y -loglevel error \(source) \(frames)/f%04d.ppm && "
                          + "for f in \(frames)/f*.ppm; do cjpeg -quality 90 -sample 2x1,1x1,1x1 \"$f\"; done > \(replay).part && "
                          + "rm -rf \(frames) && mv \(replay).part \(replay)", scratch: scratch)
            } else {
                let format = cell.format == "yuyv" ? "yuyv422" : "nv12"
                try shell("ffmpeg -y -loglevel error \(source) -pix_fmt \(format) -f rawvideo \(replay).part && mv \(replay).part \(replay)",
                          scratch: scratch)
            }
        }
        if !exists(y4m) {
            try shell("ffmpeg -y -loglevel error \(ffmpegInput(cell, replay).joined(separator: " ")) -pix_fmt yuv420p "
                      + "-f yuv4mpegpipe \(y4m).part && mv \(y4m).part \(y4m)", scratch: scratch)
        }
        return (replay, y4m)
    }

    /// ffmpeg's options reading a cell's replay file.
    func ffmpegInput(_ cell: CameraCell, _ path: String) -> [String] {
        cell.isJPEG ? ["-f", "mjpeg", "-framerate", "30", "-i", path]
            : ["-f", "rawvideo", "-pix_fmt", cell.format == "yuyv" ? "yuyv422" : "nv12", "-s", "\(cell.width)x\(cell.height)",
               "-framerate", "30", "-i", path]
    }

    /// GStreamer's elements reading a cell's replay file up to raw video the encoder takes: I420
    /// (NV12 passes as it is, as the library and ffmpeg pass it).
    func gstreamerInput(_ cell: CameraCell, _ path: String) -> [String] {
        let read = ["filesrc", "location=\(path)", "!"]
        switch cell.format {
        case "mjpeg":
            return read + ["image/jpeg,framerate=30/1", "!", "jpegparse", "!", "jpegdec", "!", "videoconvert", "!",
                           "video/x-raw,format=I420", "!"]
        case "yuyv":
            return read + ["rawvideoparse", "width=\(cell.width)", "height=\(cell.height)", "format=yuy2", "framerate=30/1", "!",
                           "videoconvert", "!", "video/x-raw,format=I420", "!"]
        default:
            return read + ["rawvideoparse", "width=\(cell.width)", "height=\(cell.height)", "format=nv12", "framerate=30/1", "!"]
        }
    }

    func cameraContenders(_ cell: CameraCell, replay: String, y4m: String, out: String) -> [(name: String, command: [String])] {
        let x264 = { (output: String) in ["x264", "--quiet", "--no-progress", "--preset", cell.preset, "--crf", "23", "-o", output, y4m] }
        var contenders: [(name: String, command: [String])] = [
            ("api", [worker, "replay", "--input", replay, "--output", out + "-api.mov", "--preset", cell.preset, "--crf", "23",
                     "--keyint", "250"] + (cell.isJPEG ? [] : ["--width", "\(cell.width)", "--height", "\(cell.height)"])),
            ("ffmpeg", ["ffmpeg", "-y", "-loglevel", "error"] + ffmpegInput(cell, replay)
                + ["-pix_fmt", cell.format == "nv12" ? "nv12" : "yuv420p", "-c:v", "libx264", "-preset", cell.preset, "-crf", "23",
                   out + "-ffmpeg.mov"]),
            ("gstreamer", ["gst-launch-1.0", "-q"] + gstreamerInput(cell, replay)
                + ["x264enc", "speed-preset=\(cell.preset)", "pass=qual", "quantizer=23", "key-int-max=250", "vbv-buf-capacity=0",
                   "aud=false", "!", "qtmux", "!", "filesink", "location=\(out)-gstreamer.mov"]),
            ("x264", x264(out + "-x264.264")),
            (Self.x264Control, x264(out + "-x264-again.264")),
        ]
        if cell.isJPEG { contenders.append(("tjdecode", [tjdecode, replay])) }
        return contenders
    }

    /// bench-tjdecode, built beside bench-worker.
    var tjdecode: String {
        guard let slash = worker.lastIndex(of: "/") else { return "bench-tjdecode" }
        return String(worker[...slash]) + "bench-tjdecode"
    }
}

extension Harness {
    /// The figures of one a2 cell, for its table row, its targets and the JSON.
    struct CameraFigures {
        var vsLimit: Double
        var vsFFmpeg: Double
        var vsGStreamer: Double
        var control: Double
        /// ffmpeg's and GStreamer's own speed against the limit: how close the limit lets anyone come.
        var ffmpegVsLimit: Double
        var gstreamerVsLimit: Double
        /// CPU seconds per frame the library spent beyond the x264 CLI (and TurboJPEG, for MJPEG, as if serial).
        var extraCPUPerFrame: Double
        var rssExcess: Double
        var optionsDiffer: [String]
    }

    mutating func cameraFormatBenchmark() throws {
        print("\na2. Camera formats (replayed camera buffers → x264 → file), medians of \(runs) alternated runs; "
              + "limit = the x264 CLI on the same pictures as I420; for MJPEG the faster of that + TurboJPEG decoding the JPEGs alone "
              + "and GStreamer (which decodes while x264's threads encode)")
        print("  " + pad("cell", 24) + pad("contender", 11) + padLeft("wall s", 8) + padLeft("cpu s", 8) + padLeft("RSS MiB", 9)
              + padLeft("vs limit", 10) + padLeft("hold ms", 9))
        var cellsJSON: [JSON] = []
        var worst = (limit: (Double.infinity, ""), ffmpeg: (Double.infinity, ""), gstreamer: (Double.infinity, ""),
                     rss: (-Double.infinity, ""))
        var worstFigures: [String: CameraFigures] = [:]
        var control = (low: Double.infinity, high: -Double.infinity)
        var mismatches: [String] = []
        var confirmed: [String] = []
        for cell in Self.cameraCells(quick: quick) {
            let (json, figures, measuredAgain) = try measureCameraCell(cell)
            cellsJSON.append(json)
            if measuredAgain { confirmed.append(cell.name) }
            worstFigures[cell.name] = figures
            if figures.vsLimit < worst.limit.0 { worst.limit = (figures.vsLimit, cell.name) }
            if figures.vsFFmpeg < worst.ffmpeg.0 { worst.ffmpeg = (figures.vsFFmpeg, cell.name) }
            if figures.vsGStreamer < worst.gstreamer.0 { worst.gstreamer = (figures.vsGStreamer, cell.name) }
            if figures.rssExcess > worst.rss.0 { worst.rss = (figures.rssExcess, cell.name) }
            control = (min(control.low, figures.control), max(control.high, figures.control))
            if !figures.optionsDiffer.isEmpty { mismatches.append("\(cell.name): \(figures.optionsDiffer.joined(separator: ", "))") }
        }
        let conversion = try conversionCells()
        sections.append(("cameraFormats", .object([("cells", .array(cellsJSON)), ("conversion", conversion.json)])))
        let controlText = "; the x264 CLI against itself \(fixed(control.low, 3))–\(fixed(control.high, 3))×"
        check("a2", "identical x264 option strings", mismatches.isEmpty,
              mismatches.isEmpty ? "every output's SEI options equal the x264 CLI's" : mismatches.joined(separator: "; "))
        // Each line says how close the others come to the limit in the worst cell: a peer that
        // is itself at the limit leaves the library nothing to be ahead by but the machine's noise.
        func context(_ cell: String) -> String {
            guard let f = worstFigures[cell] else { return "" }
            return "; there ffmpeg \(fixed(f.ffmpegVsLimit, 3))×, GStreamer \(fixed(f.gstreamerVsLimit, 3))× the limit, "
                + "the library \(fixed(f.extraCPUPerFrame * 1000, 2)) ms CPU per frame beyond x264 (+ TurboJPEG)"
        }
        let confirmedText = confirmed.isEmpty ? "" : "; measured again with \(Self.confirmationFactor * runs) more runs, a library "
            + "figure having missed a target after \(runs): \(confirmed.joined(separator: ", "))"
        let (limitTarget, peerTarget) = (Self.cameraLimitTarget, Self.cameraPeerTarget)
        check("a2", "speed ≥ \(fixed(limitTarget, 2))× the limit in every cell", worst.limit.0 >= limitTarget,
              "worst \(fixed(worst.limit.0, 3))× (\(worst.limit.1))" + context(worst.limit.1) + controlText + confirmedText)
        check("a2", "speed ≥ \(fixed(peerTarget, 1))× ffmpeg in every cell", worst.ffmpeg.0 >= peerTarget,
              "worst \(fixed(worst.ffmpeg.0, 3))× (\(worst.ffmpeg.1))" + context(worst.ffmpeg.1) + confirmedText)
        check("a2", "speed ≥ \(fixed(peerTarget, 1))× GStreamer in every cell", worst.gstreamer.0 >= peerTarget,
              "worst \(fixed(worst.gstreamer.0, 3))× (\(worst.gstreamer.1))" + context(worst.gstreamer.1) + confirmedText)
        check("a2", "peak RSS ≤ x264 CLI's + 16 MiB", worst.rss.0 <= 16 * 1_048_576, "worst \(signedMiB(worst.rss.0)) (\(worst.rss.1))")
        check("a2", "conversion ≥ 3× libv4lconvert on YUYV", conversion.worstYUYV >= 3, conversion.yuyvText)
        // Both decode with libjpeg-turbo: the stage is held at parity, within this machine's spread.
        check("a2", "conversion ≥ 0.9× libv4lconvert on MJPEG (parity)", conversion.worstJPEG >= 0.9, conversion.jpegText)
    }

    /// a2's speed targets: the library against the limit and against each peer, ffmpeg and GStreamer.
    static let cameraLimitTarget = 0.95
    static let cameraPeerTarget = 1.0

    /// One cell: every contender alternated, ratios per round; a cell where a library figure
    /// misses a speed target is measured again, as in cases a and b.
    mutating func measureCameraCell(_ cell: CameraCell) throws -> (json: JSON, figures: CameraFigures, measuredAgain: Bool) {
        let (replay, y4m) = try cameraInputs(cell)
        let out = "\(work)/camera"
        let contenders = cameraContenders(cell, replay: replay, y4m: y4m, out: out)
        let outputs = ["api": out + "-api.mov", "ffmpeg": out + "-ffmpeg.mov", "gstreamer": out + "-gstreamer.mov",
                       "x264": out + "-x264.264", Self.x264Control: out + "-x264-again.264"]
        var optionStrings: [String: String] = [:]
        var measured = try alternate(contenders) { name in
            guard let output = outputs[name] else { return }
            if optionStrings[name] == nil { optionStrings[name] = x264Options(inFile: output) ?? "(no x264 SEI)" }
            remove(output)
        }
        let first = Self.cameraFigures(cell, measured, optionStrings: optionStrings)
        let misses = [("the limit", first.figures.vsLimit, Self.cameraLimitTarget), ("ffmpeg", first.figures.vsFFmpeg, Self.cameraPeerTarget),
                      ("GStreamer", first.figures.vsGStreamer, Self.cameraPeerTarget)].filter { $0.1 < $0.2 }
        var moreRounds: Int?
        if !misses.isEmpty {
            let rounds = Self.confirmationFactor * runs
            print("    \(cell.name): " + misses.map { "api \(fixed($0.1, 3))× \($0.0)" }.joined(separator: ", ")
                  + " after \(runs) runs; measuring the cell again for \(rounds) more")
            try measureAgain(contenders, rounds: rounds, into: &measured) { name in outputs[name].map(remove) }
            moreRounds = rounds
        }
        let (figures, serial, limit, pipelinedRounds) = moreRounds == nil ? first
            : Self.cameraFigures(cell, measured, optionStrings: optionStrings)
        var contendersJSON: [(String, JSON)] = []
        for (name, _) in contenders {
            let runs = measured[name]!
            let hold = name == "api" ? runs.map { $0.results["holdMeanMs"] ?? .nan }.median : .nan
            print("  " + pad(name == "api" ? cell.name : "", 24) + pad(name, 11) + padLeft(fixed(runs.map(\.wall).median, 3), 8)
                  + padLeft(fixed(runs.map(\.cpu).median, 3), 8) + padLeft(fixed(runs.map(\.peakRSS).median / 1_048_576, 1), 9)
                  + padLeft(fixed(Self.speedRatio(runs, over: limit), 3), 10) + (name == "api" ? padLeft(fixed(hold, 2), 9) : ""))
            var entry = Self.summary(runs)
            if case .object(var members) = entry {
                members.append(("speedVsLimit", .number(Self.speedRatio(runs, over: limit))))
                if name == "api" {
                    members.append(("holdMeanMs", .number(hold)))
                    members.append(("holdMaxMs", .number(runs.map { $0.results["holdMaxMs"] ?? .nan }.max() ?? .nan)))
                }
                members.append(("x264Options", .string(optionStrings[name] ?? "")))
                entry = .object(members)
            }
            contendersJSON.append((name, entry))
        }
        if cell.isJPEG {
            print("  " + pad("", 24) + pad("limit", 11) + padLeft(fixed(limit.map(\.wall).median, 3), 8)
                  + "   (per round the faster of x264 \(fixed(measured["x264"]!.map(\.wall).median, 3)) s + TurboJPEG "
                  + "\(fixed(measured["tjdecode"]!.map(\.wall).median, 3)) s = \(fixed(serial.map(\.wall).median, 3)) s and GStreamer; "
                  + "GStreamer in \(pipelinedRounds) of \(limit.count) rounds)")
        }
        print("  " + pad("", 24) + "api: \(fixed(figures.vsLimit, 3))× the limit, \(fixed(figures.vsFFmpeg, 3))× ffmpeg, "
              + "\(fixed(figures.vsGStreamer, 3))× GStreamer, RSS \(signedMiB(figures.rssExcess)) vs x264, "
              + "\(fixed(figures.extraCPUPerFrame * 1000, 2)) ms CPU per frame beyond x264\(cell.isJPEG ? " + TurboJPEG" : "")"
              + (moreRounds.map { " over \(runs + $0) runs (the first \(runs): \(fixed(first.figures.vsLimit, 3))× the limit, "
                  + "\(fixed(first.figures.vsFFmpeg, 3))× ffmpeg, \(fixed(first.figures.vsGStreamer, 3))× GStreamer)" } ?? ""))
        let confirmation: [(String, JSON)] = moreRounds.map { [("confirmation", .object([
            ("moreRuns", .number(Double($0))), ("speedVsLimitFirstRuns", .number(first.figures.vsLimit)),
            ("speedVsFFmpegFirstRuns", .number(first.figures.vsFFmpeg)), ("speedVsGStreamerFirstRuns", .number(first.figures.vsGStreamer)),
        ]))] } ?? []
        let json = JSON.object([
            ("cell", .string(cell.name)), ("format", .string(cell.format)), ("width", .number(Double(cell.width))),
            ("height", .number(Double(cell.height))), ("preset", .string(cell.preset)), ("frames", .number(Double(cell.frames))),
            ("limitWallSeconds", .number(limit.map(\.wall).median)), ("serialLimitWallSeconds", .number(serial.map(\.wall).median)),
            ("limitIsGStreamerRounds", .number(Double(pipelinedRounds))), ("speedVsLimit", .number(figures.vsLimit)),
            ("speedVsFFmpeg", .number(figures.vsFFmpeg)), ("speedVsGStreamer", .number(figures.vsGStreamer)),
            ("controlVsX264", .number(figures.control)), ("ffmpegVsLimit", .number(figures.ffmpegVsLimit)),
            ("gstreamerVsLimit", .number(figures.gstreamerVsLimit)), ("extraCPUMsPerFrame", .number(figures.extraCPUPerFrame * 1000)),
            ("optionsIdentical", .bool(figures.optionsDiffer.isEmpty)),
            ("contenders", .object(contendersJSON)),
        ] + confirmation)
        return (json, figures, moreRounds != nil)
    }

    /// A cell's figures from its measured rounds: the serial limit per round (the x264 CLI's
    /// wall, plus TurboJPEG's for MJPEG, run one after the other) and the limit itself, for
    /// MJPEG the faster of that and GStreamer, which decodes while x264's threads encode: on two
    /// cores the serial sum is not the fastest possible.
    static func cameraFigures(_ cell: CameraCell, _ measured: [String: [Measurement]], optionStrings: [String: String])
        -> (figures: CameraFigures, serial: [Measurement], limit: [Measurement], pipelinedRounds: Int) {
        let x264 = measured["x264"]!, gstreamer = measured["gstreamer"]!, api = measured["api"]!
        let serial = zip(x264, measured["tjdecode"] ?? x264.map { _ in Measurement(wall: 0, cpu: 0, peakRSS: 0, output: "") })
            .map { Measurement(wall: $0.wall + $1.wall, cpu: $0.cpu + $1.cpu, peakRSS: $0.peakRSS, output: "") }
        let limit = cell.isJPEG ? zip(serial, gstreamer).map { $0.wall <= $1.wall ? $0 : $1 } : serial
        let pipelinedRounds = cell.isJPEG ? zip(serial, gstreamer).filter { $1.wall < $0.wall }.count : 0
        let figures = CameraFigures(
            vsLimit: speedRatio(api, over: limit), vsFFmpeg: speedRatio(api, over: measured["ffmpeg"]!),
            vsGStreamer: speedRatio(api, over: gstreamer), control: speedRatio(measured[x264Control]!, over: x264),
            ffmpegVsLimit: speedRatio(measured["ffmpeg"]!, over: limit), gstreamerVsLimit: speedRatio(gstreamer, over: limit),
            extraCPUPerFrame: (api.map(\.cpu).median - serial.map(\.cpu).median) / Double(cell.frames),
            rssExcess: api.map(\.peakRSS).median - x264.map(\.peakRSS).median,
            optionsDiffer: optionStrings.filter { $0.value != optionStrings["x264"] }.keys.sorted())
        return (figures, serial, limit, pipelinedRounds)
    }

    /// The conversion alone: milliseconds per picture for the new stage and libv4lconvert on the
    /// same pictures, in one worker process per size and format.
    func conversionCells() throws -> (json: JSON, worstYUYV: Double, worstJPEG: Double, yuyvText: String, jpegText: String) {
        print("  conversion alone, ms per picture (median of 9 rounds over the cell's pictures; warm: the first picture each time):")
        var rows: [JSON] = []
        var worst = (yuyv: Double.infinity, jpeg: Double.infinity)
        var texts = (yuyv: [String](), jpeg: [String]())
        let cells = Self.cameraCells(quick: quick).filter { $0.format != "nv12" && $0.preset == "ultrafast" }
        for cell in cells {
            let (replay, _) = try cameraInputs(cell)
            let result = try run([worker, "convert", "--input", replay, "--width", "\(cell.width)", "--height", "\(cell.height)"],
                                 scratch: scratch, spawner: spawner)
            let stage = result.results["stageMs"] ?? .nan, stageWarm = result.results["stageWarmMs"] ?? .nan
            let fallback = result.results["v4lconvertMs"], fallbackWarm = result.results["v4lconvertWarmMs"]
            let refusal = result.output.split(separator: "\n").first { $0.hasPrefix("refused ") }.map { String($0.dropFirst(8)) }
            // The target is read on warm pictures, as the issue's reference measurement was made;
            // the cold figure (every picture from memory) is printed beside it.
            let ratio = fallbackWarm.map { $0 / stageWarm }
            let label = "\(cell.format.uppercased()) \(cell.height)p"
            print("    " + pad(label, 14) + "warm: stage \(fixed(stageWarm, 3)), libv4lconvert "
                  + (fallbackWarm.map { "\(fixed($0, 3)) (\(fixed($0 / stageWarm, 2))×)" } ?? "refuses: \(refusal ?? "?")")
                  + "; cold: stage \(fixed(stage, 3))" + (fallback.map { ", libv4lconvert \(fixed($0, 3)) (\(fixed($0 / stage, 2))×)" } ?? ""))
            let text = "\(label) \(ratio.map { fixed($0, 2) + "× warm" } ?? "libv4lconvert refuses")"
                + (fallback.map { ", \(fixed($0 / stage, 2))× cold" } ?? "")
            if cell.isJPEG {
                if let ratio { worst.jpeg = min(worst.jpeg, ratio) }
                texts.jpeg.append(text)
            } else {
                worst.yuyv = min(worst.yuyv, ratio ?? .nan)
                texts.yuyv.append(text)
            }
            rows.append(.object([("cell", .string(label)), ("stageMs", .number(stage)), ("v4lconvertMs", .number(fallback ?? .nan)),
                                 ("stageWarmMs", .number(stageWarm)), ("v4lconvertWarmMs", .number(fallbackWarm ?? .nan)),
                                 ("v4lconvertRefuses", .string(refusal ?? ""))]))
        }
        return (.array(rows), worst.yuyv, worst.jpeg, texts.yuyv.joined(separator: ", "), texts.jpeg.joined(separator: ", "))
    }
}
