/// Case n: the RTSP server (issue 45). Latency, capture to a decoded picture in GStreamer's
/// `rtspsrc latency=0`, for `/sub` and `/main` beside a gst-rtsp-server script (the peer); and
/// the recorder's CPU serving 1 and 8 clients on each path ÷ the recording alone.
extension Harness {
    mutating func rtspBenchmark() throws {
        let seconds = quick ? 5 : 10, rounds = quick ? 1 : 3
        print("\nn. RTSP: a 720p30 veryfast recording with AAC; latency in rtspsrc latency=0 from the sender reports' capture times, "
              + "\(rounds) rounds of \(seconds) s per contender; the recorder's CPU alone and with 1 and 8 ffmpeg clients per path")
        let measurement = try run(["python3", "Benchmarks/rtsp-bench.py", "--movrec", movrec, "--work", work,
                                   "--rounds", String(rounds), "--seconds", String(seconds)], scratch: scratch)
        let rows = measurement.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        var figures: [(String, JSON)] = []
        for name in ["movrec /sub", "movrec /main", "peer /sub"] {
            let mine = rows.filter { $0.count == 5 && $0[0] == "latency" && $0[1] == name }
            let p50 = mine.compactMap { Double($0[2]) }.median, p95 = mine.compactMap { Double($0[3]) }.median
            print("  \(name): p50 \(fixed(p50, 1)) ms, p95 \(fixed(p95, 1)) ms (medians over rounds; p95 per round "
                  + mine.map { $0[3] }.joined(separator: ", ") + ")")
            figures.append((name, .object([("p50Ms", .number(p50)), ("p95Ms", .number(p95))])))
            if name == "movrec /sub" { check("n", "latency /sub: p95 ≤ 150 ms", p95 <= 150, "\(fixed(p95, 1)) ms") }
        }
        let cost = { (name: String) in rows.filter { $0.count == 4 && $0[0] == "cost" && $0[1] == name } }
        let alone = cost("alone").compactMap { Double($0[2]) }
        for (name, target) in [("/main, 1 client", 1.05), ("/main, 8 clients", 1.05), ("/sub, 1 client", 1.15), ("/sub, 8 clients", 1.15)] {
            let runs = cost(name)
            let ratios = zip(runs.compactMap { Double($0[2]) }, alone).map { $0 / $1 }
            let dropped = runs.compactMap { Double($0[3]) }.max() ?? .nan
            print("  \(name): recorder CPU ÷ alone \(fixed(ratios.median, 3))× (\(fixed(ratios.min() ?? .nan, 3))–\(fixed(ratios.max() ?? .nan, 3))), "
                  + "alone \(fixed(alone.median, 2)) s; dropped \(Int(dropped)) (worst run)")
            figures.append((name, .object([("ratio", .number(ratios.median)), ("ratioAll", .array(ratios.map(JSON.number))),
                                           ("droppedWorst", .number(dropped))])))
            check("n", "cost \(name): ≤ \(target)× the recording alone, 0 dropped", ratios.median <= target && dropped == 0,
                  "\(fixed(ratios.median, 3))×, \(Int(dropped)) dropped")
        }
        sections.append(("rtsp", .object(figures)))
    }
}
