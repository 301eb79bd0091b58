/// a. The encode pipeline: Y4M → x264 → file, the library (public API and `movrec record`)
/// against ffmpeg, GStreamer and the bare x264 CLI, with identical x264 parameters.
extension Harness {
    struct EncodeCell {
        var width: Int
        var height: Int
        var preset: String
        var zeroLatency: Bool
        var grain: Bool
        var frames: Int

        var name: String {
            "\(height)p \(preset)\(zeroLatency ? " zerolatency" : "") \(grain ? "grain" : "clean")"
        }
    }

    /// Frames per cell: about a second of the x264 CLI's time on two cores (grain costs x264
    /// about three times as much as the clean source).
    static func encodeCells(quick: Bool) -> [EncodeCell] {
        let frames: [String: (Int, Int)] = ["ultrafast": (240, 110), "veryfast": (120, 50), "medium": (40, 18)]
        var cells: [EncodeCell] = []
        for (width, height) in quick ? [(1280, 720)] : [(1280, 720), (1920, 1080)] {
            for preset in quick ? ["ultrafast", "veryfast"] : ["ultrafast", "veryfast", "medium"] {
                for zeroLatency in [true, false] {
                    for grain in quick ? [false] : [false, true] {
                        let clean = height == 720 ? frames[preset]!.0 : frames[preset]!.1
                        let count = grain ? max(10, clean / 3) : clean
                        cells.append(EncodeCell(width: width, height: height, preset: preset, zeroLatency: zeroLatency,
                                                grain: grain, frames: count))
                    }
                }
            }
        }
        return cells
    }

    /// Generates (once per run of the harness) the Y4M input of a cell: testsrc2, with moving
    /// film grain for the grainy source.
    func encodeInput(_ cell: EncodeCell) throws -> String {
        let path = "\(work)/testsrc2-\(cell.width)x\(cell.height)-\(cell.grain ? "grain" : "clean")-\(cell.frames).y4m"
        if !exists(path) {
            let filter = cell.grain ? "-vf noise=alls=8:allf=t" : ""
            try shell("ffmpeg -y -loglevel error -f lavfi -i testsrc2=size=\(cell.width)x\(cell.height):rate=30 \(filter) "
                      + "-frames:v \(cell.frames) -pix_fmt yuv420p -f yuv4mpegpipe \(path).part && mv \(path).part \(path)", scratch: scratch)
        }
        return path
    }

    /// The second run of the x264 CLI in every round (see ``encodeBenchmark()``).
    static let x264Control = "x264 again"

    /// How many times `runs` rounds more a cell gets when a library figure in it misses a target
    /// (see ``encodeBenchmark()``). A figure of 11 paired runs moves by about 4%
    /// here: the ratio of two adjacent runs of the same x264 CLI has a spread (standard deviation
    /// of its logarithm) of 0.05–0.19 from cell to cell, even with three-second runs.
    static let confirmationFactor = 4

    mutating func encodeBenchmark() throws {
        print("\na. Encode pipeline (Y4M → x264 → file), medians of \(runs) alternated runs (\((Self.confirmationFactor + 1) * runs) in a cell "
              + "measured again); speed = x264's wall ÷ this wall")
        var cellsJSON: [JSON] = []
        var worstX264 = (ratio: Double.infinity, cell: ""), worstFFmpeg = (ratio: Double.infinity, cell: "")
        var worstRSS = (excess: -Double.infinity, cell: "")
        // The control's lowest and highest ratio to the x264 CLI, and the x264 CLI's own lowest
        // ratio to ffmpeg: what the same program scores in these cells on this machine.
        var control = (low: Double.infinity, lowCell: "", high: -Double.infinity)
        // Per contender, the cells whose ratio to the x264 CLI is below the target's 0.97.
        var cellsBelow: [String: Int] = [:]
        var x264VsFFmpeg = (ratio: Double.infinity, cell: "")
        var mismatches: [String] = []
        // The cells measured again (see below), with how many rounds more.
        var confirmed: [(cell: String, rounds: Int)] = []
        print("  " + pad("cell", 34) + pad("contender", 11) + padLeft("wall s", 8) + padLeft("cpu s", 8)
              + padLeft("RSS MiB", 9) + padLeft("vs x264", 9) + padLeft("vs ffmpeg", 10))
        for cell in Self.encodeCells(quick: quick) where encodeCellNames?.contains(cell.name) ?? true {
            let input = try encodeInput(cell)
            let tune = cell.zeroLatency ? ["--tune", "zerolatency"] : []
            let out = "\(work)/encode"
            func x264Command(_ output: String) -> [String] {
                ["x264", "--quiet", "--no-progress", "--preset", cell.preset, "--crf", "23"] + tune + ["-o", output, input]
            }
            let contenders: [(name: String, command: [String])] = [
                ("api", [worker, "encode", "--input", input, "--output", out + "-api.mov", "--preset", cell.preset,
                         "--crf", "23", "--keyint", "250"] + tune),
                ("movrec", [movrec, "record", out + "-movrec.mov", "--video", input, "--audio", "none", "--preset", cell.preset,
                            "--crf", "23", "--keyint", "250", "--quiet", "--overwrite"] + tune),
                ("ffmpeg", ["ffmpeg", "-y", "-loglevel", "error", "-i", input, "-c:v", "libx264", "-preset", cell.preset,
                            "-crf", "23"] + (cell.zeroLatency ? ["-tune", "zerolatency"] : []) + [out + "-ffmpeg.mov"]),
                ("gstreamer", ["gst-launch-1.0", "-q", "filesrc", "location=\(input)", "!", "y4mdec", "!", "x264enc",
                               "speed-preset=\(cell.preset)", "pass=qual", "quantizer=23", "key-int-max=250",
                               "vbv-buf-capacity=0", "aud=false"] + (cell.zeroLatency ? ["tune=zerolatency"] : [])
                               + ["!", "qtmux", "!", "filesink", "location=\(out)-gstreamer.mov"]),
                ("x264", x264Command(out + "-x264.264")),
                // The control: the same x264 CLI run a second time in every round. How far its
                // ratio to the first strays from 1 is how finely this machine can tell two
                // contenders apart in that cell.
                (Self.x264Control, x264Command(out + "-x264-again.264")),
            ]
            let outputs = ["api": out + "-api.mov", "movrec": out + "-movrec.mov", "ffmpeg": out + "-ffmpeg.mov",
                           "gstreamer": out + "-gstreamer.mov", "x264": out + "-x264.264",
                           Self.x264Control: out + "-x264-again.264"]
            // The option strings, from the warm-up round's files.
            var optionStrings: [String: String] = [:]
            var measured = try alternate(contenders) { name in
                if optionStrings[name] == nil { optionStrings[name] = x264Options(inFile: outputs[name]!) ?? "(no x264 SEI)" }
                remove(outputs[name]!)
            }
            // A library figure below a target after `runs` rounds (0.97× the x264 CLI, 1.0×
            // ffmpeg) is measured again before it counts: every contender of the cell alternates
            // for `confirmationFactor` times as many rounds more, as in the first rounds (in
            // section b, leaving some contenders out changed the others' figures), and the
            // figures become medians over all paired runs, the first ones included.
            let first = Dictionary(uniqueKeysWithValues: contenders.map {
                ($0.name, (x264: Self.speedRatio(measured[$0.name]!, over: measured["x264"]!),
                           ffmpeg: Self.speedRatio(measured[$0.name]!, over: measured["ffmpeg"]!)))
            })
            let library = ["api", "movrec"]
            let missesX264 = library.filter { first[$0]!.x264 < 0.97 }
            let missesFFmpeg = library.filter { first[$0]!.ffmpeg < 1.0 }
            var moreRounds: Int?
            if !missesX264.isEmpty || !missesFFmpeg.isEmpty {
                let rounds = Self.confirmationFactor * runs
                print("    \(cell.name): "
                      + (missesX264.map { "\($0) \(fixed(first[$0]!.x264, 3))× the x264 CLI" }
                         + missesFFmpeg.map { "\($0) \(fixed(first[$0]!.ffmpeg, 3))× ffmpeg" }).joined(separator: ", ")
                      + " after \(runs) runs; measuring the cell again for \(rounds) more")
                try measureAgain(contenders, rounds: rounds, into: &measured) { name in remove(outputs[name]!) }
                moreRounds = rounds
            }
            let reference = optionStrings["x264"]!
            let differing = optionStrings.filter { $0.value != reference }.keys.sorted()
            if !differing.isEmpty {
                mismatches.append("\(cell.name): \(differing.joined(separator: ", ")) differ from x264's")
                for name in differing { print("    \(name) options: \(optionStrings[name]!)") }
                print("    x264 options: \(reference)")
            }
            var contendersJSON: [(String, JSON)] = []
            let x264 = measured["x264"]!, ffmpeg = measured["ffmpeg"]!
            for (name, _) in contenders {
                let runs = measured[name]!
                let vsX264 = Self.speedRatio(runs, over: x264), vsFFmpeg = Self.speedRatio(runs, over: ffmpeg)
                print("  " + pad(name == "api" ? cell.name : "", 34) + pad(name, 11) + padLeft(fixed(runs.map(\.wall).median, 3), 8)
                      + padLeft(fixed(runs.map(\.cpu).median, 3), 8) + padLeft(fixed(runs.map(\.peakRSS).median / 1_048_576, 1), 9)
                      + padLeft(fixed(vsX264, 3), 9) + padLeft(fixed(vsFFmpeg, 3), 10)
                      + (moreRounds != nil
                         ? "   over \(runs.count) runs (the first \(self.runs): \(fixed(first[name]!.x264, 3)), "
                           + "\(fixed(first[name]!.ffmpeg, 3)))" : ""))
                var entry = Self.summary(runs)
                if case .object(var members) = entry {
                    members.append(("speedVsX264", .number(vsX264)))
                    if moreRounds != nil {
                        members.append(("speedVsX264FirstRuns", .number(first[name]!.x264)))
                        members.append(("speedVsFFmpegFirstRuns", .number(first[name]!.ffmpeg)))
                    }
                    members.append(("speedVsFFmpeg", .number(vsFFmpeg)))
                    members.append(("x264Options", .string(optionStrings[name] ?? "")))
                    entry = .object(members)
                }
                contendersJSON.append((name, entry))
                if vsX264 < 0.97 { cellsBelow[name, default: 0] += 1 }
                if name == Self.x264Control {
                    if vsX264 < control.low { control = (vsX264, cell.name, control.high) }
                    control.high = max(control.high, vsX264)
                }
                if name == "x264", vsFFmpeg < x264VsFFmpeg.ratio { x264VsFFmpeg = (vsFFmpeg, cell.name) }
                if name == "api" || name == "movrec" {
                    if vsX264 < worstX264.ratio { worstX264 = (vsX264, "\(cell.name) \(name)") }
                    if vsFFmpeg < worstFFmpeg.ratio { worstFFmpeg = (vsFFmpeg, "\(cell.name) \(name)") }
                    let excess = runs.map(\.peakRSS).median - x264.map(\.peakRSS).median
                    if excess > worstRSS.excess { worstRSS = (excess, "\(cell.name) \(name)") }
                }
            }
            cellsJSON.append(.object([
                ("cell", .string(cell.name)), ("width", .number(Double(cell.width))), ("height", .number(Double(cell.height))),
                ("preset", .string(cell.preset)), ("zerolatency", .bool(cell.zeroLatency)), ("grain", .bool(cell.grain)),
                ("frames", .number(Double(cell.frames))), ("optionsIdentical", .bool(differing.isEmpty)),
                ("contenders", .object(contendersJSON)),
            ] + (moreRounds.map { [("confirmation", JSON.object([
                ("moreRuns", .number(Double($0))),
            ]))] } ?? [])))
            if let moreRounds { confirmed.append((cell.name, moreRounds)) }
        }
        sections.append(("encode", .array(cellsJSON)))
        check("a", "identical x264 option strings", mismatches.isEmpty,
              mismatches.isEmpty ? "every output's SEI options equal the x264 CLI's" : mismatches.joined(separator: "; "))
        // The control has one figure per cell as each of the library's contenders has: where it
        // falls below the target in as many cells, and at least as far as the library's worst
        // figure, this machine cannot tell a pipeline that meets the target from one that does
        // not, and the line says so. A library figure below the control's lowest is the library's.
        let cellCount = cellsJSON.count
        let below = { (name: String) in cellsBelow[name] ?? 0 }
        let beyondResolution = below(Self.x264Control) > 0
            && below(Self.x264Control) >= max(below("api"), below("movrec"))
            && control.low <= worstX264.ratio
        let confirmedText = confirmed.isEmpty ? "" : "; measured again with \(confirmed[0].rounds) more runs, a library figure "
            + "having missed a target after \(runs): \(confirmed.map(\.cell).joined(separator: ", "))"
        check("a", "speed ≥ 0.97× x264 CLI in every cell", worstX264.ratio >= 0.97,
              "worst \(fixed(worstX264.ratio, 3))× (\(worstX264.cell)); cells below 0.97: API \(below("api")) of \(cellCount), "
              + "movrec \(below("movrec")) of \(cellCount), the x264 CLI against itself \(below(Self.x264Control)) of \(cellCount) "
              + "(\(fixed(control.low, 3))–\(fixed(control.high, 3))×, lowest \(control.lowCell))"
              + (worstX264.ratio < 0.97 && beyondResolution
                 ? " — the x264 CLI misses it as often against itself: the target is finer than this machine resolves" : "")
              + confirmedText)
        check("a", "speed ≥ 1.0× ffmpeg in every cell", worstFFmpeg.ratio >= 1.0,
              "worst \(fixed(worstFFmpeg.ratio, 3))× (\(worstFFmpeg.cell)); the x264 CLI itself "
              + "\(fixed(x264VsFFmpeg.ratio, 3))× at worst (\(x264VsFFmpeg.cell))"
              + (worstFFmpeg.ratio < 1.0 && x264VsFFmpeg.ratio <= worstFFmpeg.ratio ? " — the x264 CLI misses this itself" : "")
              + confirmedText)
        check("a", "peak RSS ≤ x264 CLI's + 10 MiB", worstRSS.excess <= 10 * 1_048_576,
              "worst \(signedMiB(worstRSS.excess)) (\(worstRSS.cell))")
    }
}
