/// i. Audio clock correction: the recording's corrector (measuring a microphone 1000 ppm fast
/// and resampling its 48 kHz stereo audio with libsamplerate) against ffmpeg resampling the same
/// tone from 48048 to 48000 Hz with libswresample and with its soxr engine, each filter's cost
/// being ffmpeg's CPU time above the same run with no filter.
extension Harness {
    mutating func clockCorrectionBenchmark() throws {
        let seconds = quick ? 10 : 60
        print("\ni. Audio clock correction: 48 kHz stereo from a microphone 1000 ppm fast, \(seconds) s of audio per run, "
              + "vs ffmpeg resampling the same tone 48048 -> 48000 Hz (CPU above ffmpeg with no filter)")
        let tone = "\(work)/tone-48k-stereo-\(seconds)s.wav"
        if !exists(tone) { _ = try run([worker, "tone", "--seconds", String(seconds), "--output", tone], scratch: scratch) }
        func ffmpeg(_ filter: String) -> [String] { ["ffmpeg", "-nostdin", "-v", "error", "-i", tone, "-af", filter, "-f", "null", "-"] }
        let measured = try alternate([
            ("library", [worker, "correct", "--seconds", String(seconds), "--ppm", "1000"]),
            ("library measuring only", [worker, "correct", "--seconds", String(seconds), "--ppm", "1000", "--measure-only"]),
            ("ffmpeg no filter", ffmpeg("anull")),
            ("ffmpeg swr", ffmpeg("asetrate=48048,aresample=48000")),
            ("ffmpeg soxr", ffmpeg("asetrate=48048,aresample=48000:resampler=soxr")),
        ], rounds: quick ? 3 : runs)
        let perSecond: (String) -> [Double] = { name in
            name.hasPrefix("library") ? measured[name]!.map { $0.results["secondsPerSecond"] ?? .nan }
                : measured[name]!.map { $0.cpu / Double(seconds) }
        }
        let baseline = perSecond("ffmpeg no filter")
        let ours = perSecond("library").median, measuring = perSecond("library measuring only").median
        let swr = zip(perSecond("ffmpeg swr"), baseline).map { $0 - $1 }.median
        let soxr = zip(perSecond("ffmpeg soxr"), baseline).map { $0 - $1 }.median
        print("  seconds per second of audio (medians): library \(fixed(ours * 1000, 2)) ms (measuring only \(fixed(measuring * 1000, 3)) ms), "
              + "ffmpeg's libswresample \(fixed(swr * 1000, 2)) ms, its soxr engine \(fixed(soxr * 1000, 2)) ms; "
              + "ffmpeg with no filter \(fixed(baseline.median * 1000, 2)) ms")
        sections.append(("clockCorrection", .object([
            ("seconds", .number(Double(seconds))), ("partsPerMillion", .number(1000)),
            ("librarySecondsPerSecond", .number(ours)), ("libraryMeasuringOnlySecondsPerSecond", .number(measuring)),
            ("ffmpegSwrSecondsPerSecond", .number(swr)), ("ffmpegSoxrSecondsPerSecond", .number(soxr)),
            ("ffmpegNoFilterSecondsPerSecond", .number(baseline.median)),
            ("librarySecondsPerSecondAll", .array(perSecond("library").map(JSON.number))),
        ])))
    }
}
