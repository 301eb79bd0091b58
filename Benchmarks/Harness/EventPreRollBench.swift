// Case m: the memory an event clip's pre-roll holds over an hour of recording.
extension Harness {
    mutating func eventPreRollBenchmark() throws {
        let seconds = quick ? 600 : 3600
        print("\nm. Event clip pre-roll: 10 s kept, the test pattern at a constant bit rate (x264 HRD filler) + 48 kHz stereo PCM, "
              + "\(seconds / 60) minutes of media through the writing thread's pre-roll")
        print("  " + pad("picture", 22) + padLeft("kbit/s", 8) + padLeft("pre-roll MiB", 14) + padLeft("RSS 1 min MiB", 15)
              + padLeft("RSS 10 min MiB", 16) + padLeft("RSS end MiB", 13) + padLeft("growth MiB", 12) + padLeft("peak MiB", 10)
              + padLeft("begin ms", 10))
        var rows: [JSON] = []
        var worstGrowth = -Double.infinity
        for (label, size, kbps) in [("720p30", "1280x720", 8000), ("1080p30", "1920x1080", 16000)] {
            let command = [worker, "preroll", "--size", size, "--kbps", String(kbps), "--seconds", String(seconds)]
            let runs = try alternate([("worker", command)], rounds: quick ? 1 : min(runs, 3))["worker"]!
            func median(_ name: String) -> Double { runs.compactMap { $0.results[name] }.median }
            // Growth from the tenth minute, when the encoder's memory has gone back, to the end.
            let growth = runs.compactMap { run in run.results["rssAtEnd"].flatMap { end in run.results["rssAfterTenMinutes"].map { end - $0 } } }
            worstGrowth = max(worstGrowth, growth.max() ?? .nan)
            print("  " + pad(label, 22) + padLeft(fixed(median("encodedKbps"), 0), 8) + padLeft(fixed(median("preRollBytesMax") / 1_048_576, 1), 14)
                  + padLeft(fixed(median("rssAfterMinute") / 1_048_576, 1), 15) + padLeft(fixed(median("rssAfterTenMinutes") / 1_048_576, 1), 16)
                  + padLeft(fixed(median("rssAtEnd") / 1_048_576, 1), 13) + padLeft(fixed(growth.median / 1_048_576, 1), 12)
                  + padLeft(fixed(runs.map(\.peakRSS).median / 1_048_576, 1), 10) + padLeft(fixed(median("beginClipSeconds") * 1000, 1), 10))
            rows.append(.object([("picture", .string(label)), ("targetKbps", .number(Double(kbps))), ("encodedKbps", .number(median("encodedKbps"))),
                                 ("preRollMiB", .number(median("preRollBytesMax") / 1_048_576)),
                                 ("rssAfterMinuteMiB", .number(median("rssAfterMinute") / 1_048_576)),
                                 ("rssAfterTenMinutesMiB", .number(median("rssAfterTenMinutes") / 1_048_576)),
                                 ("rssAtEndMiB", .number(median("rssAtEnd") / 1_048_576)),
                                 ("peakRSSMiB", .number(runs.map(\.peakRSS).median / 1_048_576)),
                                 ("beginClipSeconds", .number(median("beginClipSeconds"))),
                                 ("growthMiBAll", .array(growth.map { .number($0 / 1_048_576) })), ("mediaSeconds", .number(Double(seconds)))]))
        }
        sections.append(("eventPreRoll", .array(rows)))
        check("m", "pre-roll memory flat: RSS(end) − RSS(10 min) ≤ 8 MiB", worstGrowth <= 8 * 1_048_576, "\(signedMiB(worstGrowth)) (worst run)")
    }
}
