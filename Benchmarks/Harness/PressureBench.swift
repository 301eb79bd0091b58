/// Case p: under pressure (issue 47). A 1080p30 recording through x264 `slow`, which two cores
/// cannot encode in real time, by movrec without and with `--degrade`, beside ffmpeg (`-re`,
/// which falls behind real time) and GStreamer (a leaky queue before x264enc, which drops at
/// random): frames kept, unplanned drops, the longest gap, uneven gaps and CPU.
extension Harness {
    mutating func pressureBenchmark() throws {
        let runs = quick ? 1 : 3, seconds = 15
        print("\np. Under pressure: 1080p30 test pattern, x264 slow, \(seconds) s; movrec --no-degrade and --degrade, ffmpeg -re, "
              + "GStreamer with a leaky queue; \(runs) runs each, alternated")
        let measurement = try run(["python3", "Benchmarks/pressure-bench.py", "--movrec", movrec, "--tsv", "--runs", String(runs),
                                   "--seconds", String(seconds)], scratch: scratch)
        let rows = measurement.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        // Each cell is "median" or "median (min-max)".
        func median(_ cell: String) -> Double? { Double(cell.split(separator: " ").first ?? "") }
        var figures: [(String, JSON)] = []
        var unplanned: [String: Double] = [:]
        for row in rows where row.count == 10 && row[0] != "variant" {
            print("  \(row[0]): \(row[2]) frames kept, \(row[5]) unplanned and \(row[6]) planned drops, longest gap \(row[3]) ms, "
                  + "\(row[4]) uneven gaps, CPU \(row[7]) s, wall \(row[8]) s" + (row[9] == "-" ? "" : ", \(row[9]) s behind real time"))
            unplanned[row[0]] = median(row[5])
            figures.append((row[0], .object([("frames", .number(median(row[2]) ?? .nan)), ("longestGapMs", .number(median(row[3]) ?? .nan)),
                                             ("unevenGaps", .number(median(row[4]) ?? .nan)), ("unplanned", .number(median(row[5]) ?? .nan)),
                                             ("planned", .number(median(row[6]) ?? .nan)), ("cpuSeconds", .number(median(row[7]) ?? .nan))])))
        }
        if let degraded = unplanned["movrec --degrade"] {
            check("p", "--degrade loses no frame at random (0 unplanned drops)", degraded == 0,
                  "\(fixed(degraded, 0)) unplanned, \(fixed(unplanned["movrec --no-degrade"] ?? .nan, 0)) with --no-degrade")
        }
        sections.append(("pressure", .object(figures)))
    }
}
