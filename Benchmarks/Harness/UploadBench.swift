/// Case o: the upload queue (issue 46). Throughput of `movrec upload` to moto on loopback beside
/// `aws s3 cp --recursive` and `rclone copy` for the same ~200 MB of segments, the queue's CPU
/// while a 720p30 recording at 8 Mbit/s uploads its segments, and the time from a segment's
/// finish to its object being stored.
extension Harness {
    mutating func uploadBenchmark() throws {
        let reps = quick ? 2 : 5, recordings = quick ? 1 : 3, seconds = quick ? 20 : 40
        print("\no. Uploads to S3 (moto on loopback): 20 segments of ~10 MB by movrec, aws-cli and rclone, \(reps) runs each, alternated; "
              + "a \(seconds) s 720p30 8 Mbit/s recording with and without --upload, \(recordings) each")
        let measurement = try run(["python3", "Benchmarks/upload-bench.py", "--movrec", movrec, "--tsv", "--reps", String(reps),
                                   "--rec-reps", String(recordings), "--rec-duration", String(seconds)], scratch: scratch)
        let rows = measurement.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        var figures: [(String, JSON)] = []
        for row in rows where row.count == 8 && row[0] == "throughput" {
            let values = row[2...6].compactMap(Double.init)
            guard values.count == 5 else { continue }
            print("  \(row[1]): \(fixed(values[0], 2)) s, \(fixed(values[1], 1)) MB/s, \(fixed(values[2], 1)) ms CPU per MB; "
                  + "time ÷ movrec \(fixed(values[3], 2)), CPU per MB ÷ movrec \(fixed(values[4], 2))" + (row[7] == "1" ? "" : " (FAILED runs)"))
            figures.append((row[1], .object([("seconds", .number(values[0])), ("megabytesPerSecond", .number(values[1])),
                                             ("cpuMillisecondsPerMegabyte", .number(values[2])), ("timeRatio", .number(values[3])),
                                             ("cpuRatio", .number(values[4]))])))
        }
        if let row = rows.first(where: { $0.count == 7 && $0[0] == "recording" }) {
            let values = row[1...5].compactMap(Double.init)
            if values.count == 5 {
                print("  queue while recording: upload threads \(fixed(values[0], 2)) % of a core, threads other than x264's "
                      + "\(fixed(values[1], 2)) %, whole process \(fixed(values[2], 1)) % (x264's noise); dropped \(Int(values[3])) "
                      + "with --upload, \(Int(values[4])) without (worst run)")
                figures.append(("recording", .object([("uploadThreadsCorePercent", .number(values[0])),
                                                      ("otherThreadsCorePercent", .number(values[1])),
                                                      ("droppedWorst", .number(values[3]))])))
                check("o", "the queue ≤ 5 % of one core at 8 Mbit/s, the recording 0 dropped",
                      max(values[0], values[1]) <= 5 && values[3] == 0, "\(fixed(max(values[0], values[1]), 2)) %, \(Int(values[3])) dropped")
            }
        }
        if let row = rows.first(where: { $0.count == 5 && $0[0] == "latency" }), let p50 = Double(row[1]), let p95 = Double(row[2]) {
            print("  segment finished → object stored: p50 \(fixed(p50, 0)) ms, p95 \(fixed(p95, 0)) ms over \(row[4]) segments")
            figures.append(("latency", .object([("p50Ms", .number(p50)), ("p95Ms", .number(p95))])))
        }
        sections.append(("upload", .object(figures)))
    }
}
