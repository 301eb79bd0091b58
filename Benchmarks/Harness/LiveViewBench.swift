/// Case k: the live view. Its cost beside a recording (CPU of recording plus live view ÷
/// recording alone, with 1 and 8 viewers) and its latency, capture to a frame presented in
/// Chromium, beside the peer a user would script: ffmpeg's own HLS.
extension Harness {
    mutating func liveViewBenchmark() throws {
        try liveViewCost()
        try liveViewLatency()
    }

    private mutating func liveViewCost() throws {
        let seconds = quick ? 5 : 10
        print("\nk. Live view cost: 720p30 veryfast and AAC recorded from the test pattern and a tone in real time, \(seconds) s per run, "
              + "alone and with the live view (640x360 ultrafast zerolatency, /video.mp4) read by 1 and by 8 curl viewers; the recorder's own CPU")
        let out = "\(work)/live-view.mov"
        let base = [worker, "live-view", "--seconds", String(seconds), "--size", "1280x720", "--output", out]
        let measured = try alternate([
            ("recording", base + ["--no-live"]),
            ("1 viewer", base + ["--viewers", "1"]),
            ("8 viewers", base + ["--viewers", "8"]),
        ], rounds: quick ? 3 : runs) { _ in remove(out) }
        let alone = measured["recording"]!.map { $0.results["recorderCPU"] ?? .nan }
        var figures: [(String, JSON)] = [("recorderCPUAlone", .number(alone.median))]
        for name in ["1 viewer", "8 viewers"] {
            let runs = measured[name]!
            let cpu = runs.map { $0.results["recorderCPU"] ?? .nan }
            let ratios = zip(cpu, alone).map { $0 / $1 }
            let dropped = (runs + measured["recording"]!).compactMap { $0.results["dropped"] }.max() ?? .nan
            let liveDropped = runs.compactMap { $0.results["liveDropped"] }.max() ?? .nan
            print("  \(name): recorder CPU \(fixed(cpu.median, 2)) s against \(fixed(alone.median, 2)) s alone; per-round ratio \(fixed(ratios.median, 3))× "
                  + "(\(fixed(ratios.min() ?? .nan, 3))–\(fixed(ratios.max() ?? .nan, 3))); recording dropped \(Int(dropped)), live view left out \(Int(liveDropped)) (worst runs)")
            figures.append((name, .object([("recorderCPU", .number(cpu.median)), ("ratio", .number(ratios.median)),
                                           ("ratioAll", .array(ratios.map(JSON.number))), ("droppedWorst", .number(dropped)),
                                           ("liveDroppedWorst", .number(liveDropped))])))
            check("k", "live view cost with \(name): ≤ 1.15× the recording alone, 0 dropped", ratios.median <= 1.15 && dropped == 0,
                  "\(fixed(ratios.median, 3))×, \(Int(dropped)) dropped")
        }
        sections.append(("liveViewCost", .object(figures)))
    }

    private mutating func liveViewLatency() throws {
        let seconds = quick ? 6 : 10, rounds = quick ? 1 : 3
        print("\nk. Live view latency: capture to presentation in headless Chromium, \(rounds) rounds of \(seconds) s per contender, "
              + "each recording 720p30 with AAC: the preview page through MSE (muted, and with sound), LL-HLS in hls.js, ffmpeg's HLS in hls.js")
        let script = "Benchmarks/latency.py"
        let measurement = try run(["python3", script, "--movrec", movrec, "--work", work, "--seconds", String(seconds),
                                   "--rounds", String(rounds)], scratch: scratch)
        let parsed = LatencyReport(measurement.output)
        var figures: [(String, JSON)] = []
        // The page plays /video.mp4 until sound is asked for; with sound Chromium keeps its audio
        // buffer ahead of the picture, which the target does not cover (a figure only).
        for (name, target) in [("mse", 250.0), ("mse+sound", Double.nan), ("ll-hls", 2000.0), ("ffmpeg-hls", .nan)] {
            let p50 = parsed.values(name, "p50").median, p95 = parsed.values(name, "p95").median
            print("  \(name): p50 \(fixed(p50, 0)) ms, p95 \(fixed(p95, 0)) ms (medians over rounds; p95 per round "
                  + parsed.values(name, "p95").map { fixed($0, 0) }.joined(separator: ", ") + ")")
            figures.append((name, .object([("p50Ms", .number(p50)), ("p95Ms", .number(p95)),
                                           ("p95MsAll", .array(parsed.values(name, "p95").map(JSON.number)))])))
            if target.isFinite {
                check("k", "latency \(name): p95 ≤ \(Int(target)) ms", p95 <= target, "\(fixed(p95, 0)) ms")
            }
        }
        sections.append(("liveViewLatency", .object(figures)))
    }
}

/// The JSON `latency.py` prints: per contender, a list of rounds with p50 and p95.
struct LatencyReport {
    private var rounds: [String: [[String: Double]]] = [:]

    /// A small reader for that one shape: `{"name": [{"p50": x, "p95": y, "samples": n}, …], …}`.
    init(_ text: String) {
        var name = "", key = ""
        var current: [String: Double] = [:]
        var token = "", inString = false
        for character in text {
            if inString {
                if character == "\"" {
                    inString = false
                    if ["p50", "p95", "samples"].contains(token) { key = token } else { name = token }
                    token = ""
                } else {
                    token.append(character)
                }
                continue
            }
            switch character {
            case "\"": inString = true
            case "{": current = [:]
            case ",", "]", "}":
                if !key.isEmpty { current[key] = Double(token.trimmingSpaces()) ?? .nan }
                key = ""
                token = ""
                if character == "}" {
                    if !current.isEmpty { rounds[name, default: []].append(current) }
                    current = [:]
                }
            case ":", " ", "[": break
            default: if !key.isEmpty { token.append(character) }
            }
        }
    }

    func values(_ name: String, _ key: String) -> [Double] { (rounds[name] ?? []).map { $0[key] ?? .nan } }
}

private extension String {
    func trimmingSpaces() -> String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
