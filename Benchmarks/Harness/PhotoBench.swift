#if canImport(Glibc)
import Glibc
#endif

/// j. Photos: a burst of 1080p photos beside ffmpeg's `mjpeg` and GStreamer's `jpegenc` encoding
/// the same frames to JPEG files; shutter lag with and without zero shutter lag; photos during a
/// live 720p recording; and what zero shutter lag's copies cost an idle 1080p session.
extension Harness {
    mutating func photoBenchmark() throws {
        let count = quick ? 10 : 30
        print("\nj. Photos: a burst of \(count) photos of 1920x1080 frames from a Y4M file (photos per second, first request to last file "
              + "on disk, medians of alternated runs) vs ffmpeg's mjpeg and GStreamer's jpegenc on the same frames")
        let input = "\(work)/photo-1080p-\(count).y4m"
        if !exists(input) {
            try shell("ffmpeg -y -loglevel error -f lavfi -i testsrc2=size=1920x1080:rate=30 -frames:v \(count) -pix_fmt yuv420p \(input)", scratch: scratch)
        }
        let out = "\(work)/photos"
        mkdir(out, 0o755)
        let clean = { (_: String) in try shell("rm -f \(out)/*", scratch: self.scratch) }
        let measured = try alternate([
            ("JPEG", [worker, "photo-burst", "--input", input, "--count", String(count), "--codec", "jpeg", "--directory", out]),
            ("JPEG speed", [worker, "photo-burst", "--input", input, "--count", String(count), "--codec", "jpeg", "--prioritize", "speed", "--directory", out]),
            ("HEIF", [worker, "photo-burst", "--input", input, "--count", String(count), "--codec", "hevc", "--directory", out]),
            ("ffmpeg mjpeg", ["ffmpeg", "-y", "-v", "error", "-i", input, "-c:v", "mjpeg", "-q:v", "3", "-f", "image2", "\(out)/ffmpeg-%03d.jpg"]),
            ("gstreamer jpegenc", ["gst-launch-1.0", "-q", "filesrc", "location=\(input)", "!", "y4mdec", "!", "jpegenc", "quality=90",
                                   "!", "multifilesink", "location=\(out)/gstreamer-%03d.jpg"]),
        ], rounds: quick ? 3 : runs, after: clean)
        let rate: (String) -> [Double] = { name in
            name.hasPrefix("JPEG") || name == "HEIF" ? measured[name]!.map { $0.results["photosPerSecond"] ?? .nan }
                : measured[name]!.map { Double(count) / $0.wall }
        }
        var rows: [JSON] = []
        for name in ["JPEG", "JPEG speed", "HEIF", "ffmpeg mjpeg", "gstreamer jpegenc"] {
            let runs = measured[name]!
            print("  " + pad(name, 20) + padLeft(fixed(rate(name).median, 1), 8) + " photos/s (spread "
                  + fixed(rate(name).percentile(0.1), 1) + "–" + fixed(rate(name).percentile(0.9), 1) + "), "
                  + fixed(runs.map(\.cpu).median, 2) + " CPU s, peak RSS " + mib(runs.map(\.peakRSS).median))
            rows.append(.object([("contender", .string(name)), ("photosPerSecond", .number(rate(name).median)),
                                 ("photosPerSecondAll", .array(rate(name).map(JSON.number))),
                                 ("cpuSeconds", .number(runs.map(\.cpu).median)),
                                 ("peakRSSMiB", .number(runs.map(\.peakRSS).median / 1_048_576))]))
        }
        let peers = ["ffmpeg mjpeg", "gstreamer jpegenc"]
        let fasterPeer = peers.max { rate($0).median < rate($1).median }!
        let ratio = rate("JPEG").median / rate(fasterPeer).median
        check("j", "burst JPEG at least as fast as the faster peer", ratio >= 1.0, "\(fixed(ratio, 3))× \(fasterPeer)")

        let lag = try shutterLag()
        let recording = try photosWhileRecording(out)
        let copies = try ringCost()
        sections.append(("photos", .object([("burst", .array(rows)), ("burstRatio", .number(ratio)), ("fasterPeer", .string(fasterPeer)),
                                            ("shutterLag", lag), ("whileRecording", recording), ("ringCopies", copies)])))
    }

    /// Shutter lag at 30 and 5 fps with and without zero shutter lag.
    private mutating func shutterLag() throws -> JSON {
        var cells: [JSON] = []
        for fps in [30, 5] {
            let directory = "\(work)/photos"
            let base = [worker, "photo-lag", "--fps", String(fps), "--count", quick ? "8" : "16", "--directory", directory]
            let measured = try alternate([("zero shutter lag", base), ("next frame", base + ["--no-zero-shutter-lag"])],
                                         rounds: quick ? 2 : 3)
            for name in ["zero shutter lag", "next frame"] {
                let runs = measured[name]!
                let median = runs.compactMap { $0.results["medianDistanceMs"] }.median
                let worst = runs.compactMap { $0.results["worstDistanceMs"] }.max() ?? .nan
                let lag = runs.compactMap { $0.results["medianLagMs"] }.median
                print("  shutter lag at \(fps) fps, \(pad(name, 16)): request to frame median \(fixed(median, 1)) ms, worst \(fixed(worst, 1)) ms "
                      + "(median signed lag \(fixed(lag, 1)) ms; half a frame interval is \(fixed(500 / Double(fps), 1)) ms)")
                cells.append(.object([("fps", .number(Double(fps))), ("mode", .string(name)), ("medianMs", .number(median)),
                                      ("worstMs", .number(worst)), ("medianSignedMs", .number(lag))]))
                if name == "zero shutter lag" {
                    check("j", "zero shutter lag within half a frame interval at the median (\(fps) fps)", median <= 500 / Double(fps),
                          "\(fixed(median, 1)) ms")
                }
            }
        }
        return .array(cells)
    }

    /// Photos during a live 720p30 recording: the movie's dropped frames.
    private mutating func photosWhileRecording(_ directory: String) throws -> JSON {
        let seconds = quick ? 5 : 10, photos = quick ? 15 : 30
        var dropped: [Double] = [], frames: [Double] = []
        for _ in 0..<(quick ? 1 : 3) {
            let m = try run([worker, "photo-recording", "--seconds", String(seconds), "--photos", String(photos), "--directory", directory],
                            scratch: scratch, spawner: spawner)
            dropped.append(m.results["dropped"] ?? .nan)
            frames.append(m.results["frames"] ?? .nan)
            try shell("rm -f \(directory)/*", scratch: scratch)
        }
        print("  \(photos) photos during a \(seconds) s live 1280x720 30 fps recording: \(dropped.map { Int($0) }) frames dropped of \(frames.map { Int($0) })")
        check("j", "photos while recording: 0 dropped video frames", dropped.allSatisfy { $0 == 0 }, "\(Int(dropped.max() ?? .nan)) in the worst run")
        return .object([("seconds", .number(Double(seconds))), ("photos", .number(Double(photos))),
                        ("dropped", .array(dropped.map(JSON.number))), ("frames", .array(frames.map(JSON.number)))])
    }

    /// CPU per frame of zero shutter lag's copies: an idle 1080p30 session with the ring and without.
    private mutating func ringCost() throws -> JSON {
        let seconds = quick ? 4 : 10
        let base = [worker, "photo-idle", "--seconds", String(seconds)]
        let measured = try alternate([("ring", base), ("no ring", base + ["--no-zero-shutter-lag"])], rounds: quick ? 3 : runs)
        let frames = Double(seconds * 30)
        let perFrame = zip(measured["ring"]!, measured["no ring"]!).map { ($0.cpu - $1.cpu) / frames }.median
        let rss = measured["ring"]!.map(\.peakRSS).median - measured["no ring"]!.map(\.peakRSS).median
        print("  zero shutter lag's copies, idle 1920x1080 30 fps session: \(fixed(perFrame * 1000, 3)) ms CPU per frame "
              + "(\(fixed(perFrame * 30 * 100, 2))% of a core), peak RSS +\(mib(rss))")
        return .object([("cpuPerFrameSeconds", .number(perFrame)), ("peakRSSExtraMiB", .number(rss / 1_048_576))])
    }
}
