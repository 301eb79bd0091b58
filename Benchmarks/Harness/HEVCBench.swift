#if canImport(Glibc)
import Glibc
#endif

/// l. HEVC: Y4M → x265 → file, the library (public API and `movrec record --codec hevc`) against
/// the bare x265 CLI and ffmpeg's libx265 with the same x265 options; the size HEVC buys at the
/// same PSNR as H.264; and a live 720p30 recording with AAC at the preset `--codec hevc` picks.
extension Harness {
    /// Frames per cell: about two and a half seconds of the x265 CLI's time on two cores with
    /// the grainy source (runs of one second were mostly x265's start-up).
    static let hevcCells: [(width: Int, height: Int, preset: String, frames: Int)] = [
        (1280, 720, "ultrafast", 240), (1280, 720, "superfast", 150), (1280, 720, "veryfast", 110),
        (1920, 1080, "ultrafast", 100), (1920, 1080, "superfast", 75), (1920, 1080, "veryfast", 60),
    ]

    /// The second run of the x265 CLI in every round: the control.
    static let x265Control = "x265 again"

    mutating func hevcBenchmark() throws {
        print("\nl. HEVC encode (Y4M with film grain → x265 → file), medians of \(runs) alternated runs; speed = x265's wall ÷ this wall")
        print("  " + pad("cell", 22) + pad("contender", 11) + padLeft("wall s", 8) + padLeft("cpu s", 8)
              + padLeft("RSS MiB", 9) + padLeft("vs x265", 9) + padLeft("vs ffmpeg", 10))
        var cellsJSON: [JSON] = []
        var worst = (x265: Double.infinity, ffmpeg: Double.infinity, cells: ("", ""))
        var control = (low: Double.infinity, high: -Double.infinity)
        var mismatches: [String] = []
        for cell in Self.hevcCells {
            let name = "\(cell.height)p \(cell.preset)"
            let input = try encodeInput(EncodeCell(width: cell.width, height: cell.height, preset: cell.preset, zeroLatency: false,
                                                   grain: true, frames: cell.frames))
            let out = "\(work)/hevc"
            // The library's settings, spelled out for the others: CRF 28 (x265's default), a
            // keyframe at most every 250 frames, closed GOPs, BT.709 in the VUI.
            let x265Options = ["--preset", cell.preset, "--crf", "28", "--keyint", "250", "--no-open-gop",
                               "--colorprim", "bt709", "--transfer", "bt709", "--colormatrix", "bt709"]
            func x265(_ output: String) -> [String] { ["x265", "--log-level", "none", "--no-progress"] + x265Options + ["-o", output, input] }
            let contenders: [(name: String, command: [String])] = [
                ("api", [worker, "encode", "--codec", "hevc", "--input", input, "--output", out + "-api.mov", "--preset", cell.preset,
                         "--crf", "28", "--keyint", "250"]),
                ("movrec", [movrec, "record", out + "-movrec.mov", "--video", input, "--audio", "none", "--codec", "hevc",
                            "--preset", cell.preset, "--crf", "28", "--keyint", "250", "--quiet", "--overwrite"]),
                ("ffmpeg", ["ffmpeg", "-y", "-loglevel", "error", "-i", input, "-c:v", "libx265", "-preset", cell.preset, "-crf", "28",
                            "-x265-params", "log-level=none:keyint=250:open-gop=0:colorprim=bt709:transfer=bt709:colormatrix=bt709",
                            "-tag:v", "hvc1", out + "-ffmpeg.mov"]),
                ("x265", x265(out + "-x265.265")),
                (Self.x265Control, x265(out + "-x265-again.265")),
            ]
            let outputs = ["api": out + "-api.mov", "movrec": out + "-movrec.mov", "ffmpeg": out + "-ffmpeg.mov",
                           "x265": out + "-x265.265", Self.x265Control: out + "-x265-again.265"]
            var optionStrings: [String: String] = [:]
            let measured = try alternate(contenders) { contender in
                if optionStrings[contender] == nil { optionStrings[contender] = x265OptionString(inFile: outputs[contender]!) ?? "(no x265 SEI)" }
                remove(outputs[contender]!)
            }
            let reference = Self.codingOptions(optionStrings["x265"]!)
            for (contender, text) in optionStrings.sorted(by: { $0.key < $1.key }) where Self.codingOptions(text) != reference {
                let ours = Self.codingOptions(text), theirs = reference
                mismatches.append("\(name) \(contender): " + ours.subtracting(theirs).sorted().joined(separator: " ")
                                  + " instead of " + theirs.subtracting(ours).sorted().joined(separator: " "))
            }
            let x265Runs = measured["x265"]!, ffmpegRuns = measured["ffmpeg"]!
            var contendersJSON: [(String, JSON)] = []
            for (contender, _) in contenders {
                let runs = measured[contender]!
                let vsX265 = Self.speedRatio(runs, over: x265Runs), vsFFmpeg = Self.speedRatio(runs, over: ffmpegRuns)
                print("  " + pad(contender == "api" ? name : "", 22) + pad(contender, 11) + padLeft(fixed(runs.map(\.wall).median, 3), 8)
                      + padLeft(fixed(runs.map(\.cpu).median, 3), 8) + padLeft(fixed(runs.map(\.peakRSS).median / 1_048_576, 1), 9)
                      + padLeft(fixed(vsX265, 3), 9) + padLeft(fixed(vsFFmpeg, 3), 10))
                var entry = Self.summary(runs)
                if case .object(var members) = entry {
                    members += [("speedVsX265", .number(vsX265)), ("speedVsFFmpeg", .number(vsFFmpeg)),
                                ("fps", .number(Double(cell.frames) / runs.map(\.wall).median))]
                    entry = .object(members)
                }
                contendersJSON.append((contender, entry))
                if contender == Self.x265Control {
                    control = (min(control.low, vsX265), max(control.high, vsX265))
                } else if contender == "api" || contender == "movrec" {
                    if vsX265 < worst.x265 { worst = (vsX265, worst.ffmpeg, (name + " " + contender, worst.cells.1)) }
                    if vsFFmpeg < worst.ffmpeg { worst = (worst.x265, vsFFmpeg, (worst.cells.0, name + " " + contender)) }
                }
            }
            cellsJSON.append(.object([("cell", .string(name)), ("frames", .number(Double(cell.frames))),
                                      ("contenders", .object(contendersJSON))]))
        }
        for mismatch in mismatches { print("    options differ: \(mismatch)") }
        let quality = try hevcSizeAtEqualQuality()
        let live = try hevcLive()
        sections.append(("hevc", .object([("cells", .array(cellsJSON)), ("controlSpeedVsX265Low", .number(control.low)),
                                          ("controlSpeedVsX265High", .number(control.high)), ("sizeAtEqualPSNR", quality),
                                          ("live", live), ("optionMismatches", .array(mismatches.map(JSON.string)))])))
        let spread = "the control, the same CLI again, \(fixed(control.low, 3))–\(fixed(control.high, 3))×"
        func within(_ ratio: Double, _ target: Double) -> String {
            ratio < target && ratio >= control.low ? "; within the control's own spread" : ""
        }
        check("l", "HEVC: the library ≥ 0.97× the x265 CLI", worst.x265 >= 0.97,
              "worst \(fixed(worst.x265, 3))× (\(worst.cells.0)); \(spread)\(within(worst.x265, 0.97))")
        check("l", "HEVC: the library ≥ 1.0× ffmpeg's libx265", worst.ffmpeg >= 1.0,
              "worst \(fixed(worst.ffmpeg, 3))× (\(worst.cells.1)); \(spread)\(within(worst.ffmpeg, 1.0))")
        check("l", "HEVC: the same x265 options on every side", mismatches.isEmpty, mismatches.isEmpty ? "identical" : "\(mismatches.count) differ")
    }

    /// The options of an x265 SEI that decide the coding, as a set: without how NAL units are
    /// framed (`annexb`: a movie takes lengths), the frame count the CLI reads from its file
    /// (`total-frames`) and the chroma siting FFmpeg copies from its input into the VUI
    /// (`chromaloc…`).
    static func codingOptions(_ text: String) -> Set<Substring> {
        Set(text.split(separator: " ").filter { option in
            !["annexb", "no-annexb"].contains(option) && !option.hasPrefix("total-frames=") && !option.hasPrefix("chromaloc")
        })
    }

    /// The HEVC file's size ÷ the H.264 file's at the PSNR the H.264 one has (CRF 23), from the
    /// library's own files of the same grainy frames: HEVC at four CRFs, its log-size
    /// interpolated at that PSNR.
    mutating func hevcSizeAtEqualQuality() throws -> JSON {
        print("  size at equal quality (the library's H.264 at CRF 23 against its HEVC at CRF 22–31 and further until bracketed, PSNR by ffmpeg):")
        var rows: [JSON] = []
        for (width, height, preset) in [(1280, 720, "ultrafast"), (1280, 720, "veryfast"), (1920, 1080, "veryfast")] {
            let input = try encodeInput(EncodeCell(width: width, height: height, preset: preset, zeroLatency: false, grain: true,
                                                   frames: height == 720 ? 90 : 40))
            func encode(_ codec: String, crf: Int) throws -> (size: Double, psnr: Double) {
                let path = "\(work)/quality-\(codec)-\(crf).mov"
                _ = try run([worker, "encode", "--codec", codec, "--input", input, "--output", path, "--preset", preset,
                             "--crf", String(crf), "--keyint", "250"], scratch: scratch)
                let size = Double(fileSize(path) ?? 0)
                _ = try run(["ffmpeg", "-nostdin", "-i", path, "-i", input, "-lavfi", "psnr", "-f", "null", "-"], scratch: scratch)
                let log = (try? readText(scratch + "/stderr.txt")) ?? ""
                remove(path)
                guard let range = log.firstRange(of: "average:"),
                      let psnr = Double(log[range.upperBound...].prefix { $0 != " " }) else { throw HarnessError("no PSNR for \(path)") }
                return (size, psnr)
            }
            let h264 = try encode("h264", crf: 23)
            var hevc = try [22, 25, 28, 31].map { try encode("hevc", crf: $0) }
            // More points, three CRF steps apart, until two bracket the H.264 PSNR.
            var low = 22, high = 31
            while hevc.map(\.psnr).max()! < h264.psnr, low > 1 {
                low -= 3
                hevc.append(try encode("hevc", crf: low))
            }
            while hevc.map(\.psnr).min()! > h264.psnr, high < 49 {
                high += 3
                hevc.append(try encode("hevc", crf: high))
            }
            // Between the two HEVC points that bracket the H.264 PSNR (or the nearest two).
            let sorted = hevc.sorted { $0.psnr < $1.psnr }
            let upper = sorted.firstIndex { $0.psnr >= h264.psnr } ?? sorted.count - 1
            let (a, b) = (sorted[max(0, upper - 1)], sorted[max(1, upper)])
            let t = (h264.psnr - a.psnr) / (b.psnr - a.psnr)
            let size = exp(log(a.size) + t * (log(b.size) - log(a.size)))
            let ratio = size / h264.size
            print("    \(height)p \(preset): H.264 \(fixed(h264.size / 1024, 0)) KiB at \(fixed(h264.psnr, 2)) dB; HEVC "
                  + hevc.map { "\(fixed($0.size / 1024, 0)) KiB at \(fixed($0.psnr, 2)) dB" }.joined(separator: ", ")
                  + " → HEVC ÷ H.264 at equal PSNR: \(fixed(ratio, 3))")
            rows.append(.object([("cell", .string("\(height)p \(preset)")), ("h264Bytes", .number(h264.size)),
                                 ("h264PSNR", .number(h264.psnr)),
                                 ("hevc", .array(hevc.map { .object([("bytes", .number($0.size)), ("psnr", .number($0.psnr))]) })),
                                 ("ratio", .number(ratio))]))
        }
        return .array(rows)
    }

    /// `movrec record --codec hevc` of the test pattern and the tone at 720p30 for ten seconds,
    /// with the preset it picks: how many frames it drops.
    mutating func hevcLive() throws -> JSON {
        let seconds = quick ? 5 : 10
        var dropped: [Double] = [], presets: Set<String> = []
        for round in 0..<(quick ? 2 : 3) {
            let path = "\(work)/hevc-live-\(round).mov"
            let measurement = try run([movrec, "record", path, "--video", "testsrc", "--audio", "tone", "--size", "1280x720",
                                       "--codec", "hevc", "--duration", String(seconds), "--overwrite"], scratch: scratch)
            let text = measurement.output + ((try? readText(scratch + "/stderr.txt")) ?? "")
            remove(path)
            if let range = text.firstRange(of: "HEVC preset ") { presets.insert(String(text[range.upperBound...].prefix { $0 != " " })) }
            let drops = text.firstRange(of: " dropped").map { range in
                Double(text[..<range.lowerBound].reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? .nan
            } ?? 0
            dropped.append(drops)
        }
        let worst = dropped.max() ?? .nan
        print("  live 720p30 with AAC, \(seconds) s, \(dropped.count) runs at the preset movrec picked (\(presets.sorted().joined(separator: ", "))): "
              + "\(Int(worst)) dropped in the worst run")
        check("l", "HEVC live 720p30 with AAC: 0 dropped at the preset --codec hevc picks", worst == 0, "\(Int(worst)) dropped in the worst run")
        return .object([("preset", .string(presets.sorted().joined(separator: ","))), ("droppedWorst", .number(worst)),
                        ("droppedAll", .array(dropped.map(JSON.number)))])
    }
}

/// The option list x265 writes into its version SEI ("… options: cpuid=… frame-threads=…"),
/// without the CPU and thread entries that differ with the process, not the settings.
func x265OptionString(inFile path: String) -> String? {
    guard let bytes = try? readBytes(path, limit: 4 << 20) else { return nil }
    let marker = Array("x265 (build".utf8)
    guard let start = bytes.indices.first(where: { i in bytes[i] == marker[0] && bytes[i...].starts(with: marker) }) else { return nil }
    let text = String(decoding: bytes[start...].prefix { $0 != 0 && $0 != 0x80 }, as: UTF8.self)
    guard let range = text.firstRange(of: "options: ") else { return nil }
    return String(text[range.upperBound...])
}
