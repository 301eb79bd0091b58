import Foundation
import Testing
@testable import MovieContainer
@testable import MovieCapture

/// Where a movie's sync marks land after a real decoder: each white flash's presentation time
/// and each click's onset, to the sample, and how far apart they are.
struct SyncMeasurement: CustomStringConvertible {
    /// Presentation times of the white frames, in seconds.
    var flashes: [Double]
    /// Onsets of the clicks, in seconds.
    var clicks: [Double]

    /// For each flash, its click's onset minus the flash's time in milliseconds (a click within
    /// half a second of it), in order.
    var offsets: [Double] {
        flashes.compactMap { flash in
            clicks.min { abs($0 - flash) < abs($1 - flash) }.flatMap { abs($0 - flash) < 0.5 ? ($0 - flash) * 1000 : nil }
        }
    }

    var description: String {
        "flashes \(flashes.map { String(format: "%.4f", $0) }), offsets (ms) \(offsets.map { String(format: "%.3f", $0) })"
    }

    /// Checks that there are at least `count` pairs of marks and every offset is within
    /// `tolerance` milliseconds, naming `what` in the failure.
    func expectInSync(_ what: String, atLeast count: Int, tolerance: Double = 1.0,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(offsets.count >= count && offsets.count == flashes.count && clicks.count == flashes.count,
                "\(what): \(self), \(clicks.count) clicks", sourceLocation: sourceLocation)
        #expect(offsets.allSatisfy { abs($0) <= tolerance }, "\(what): \(self)", sourceLocation: sourceLocation)
        print("sync \(what): \(self)")
    }

    /// The same check for a movie cut at `cut` seconds by a pause: a mark whose frame was
    /// taken just before the pause and whose click just after it (or the other way round) has
    /// lost its partner, so one flash or click without a partner within 50 ms is left out when
    /// it lies within 0.3 s of the cut. Every other mark must pair and keep its sync.
    func expectInSync(_ what: String, atLeast count: Int, cutAt cut: Double,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        let lone = { (time: Double, others: [Double]) in !others.contains { abs($0 - time) < 0.05 } }
        let loneFlashes = flashes.filter { lone($0, clicks) }
        let loneClicks = clicks.filter { lone($0, flashes) }
        let cutMark = loneFlashes + loneClicks
        #expect(cutMark.count <= 1 && cutMark.allSatisfy { abs($0 - cut) < 0.3 },
                "\(what): marks without a partner \(cutMark), the pause at \(cut) s; \(self), clicks \(clicks)",
                sourceLocation: sourceLocation)
        let kept = SyncMeasurement(flashes: flashes.filter { !loneFlashes.contains($0) },
                                   clicks: clicks.filter { !loneClicks.contains($0) })
        kept.expectInSync(what, atLeast: count, sourceLocation: sourceLocation)
    }
}

/// Decodes movies and finds their sync marks (``TestPatternSource`` and ``ToneSource`` with
/// `marksSeconds`, or files made the same way).
enum SyncChecker {
    /// The picture size frames are scaled to before their mean luma is taken.
    static let thumbnail = (width: 32, height: 24)

    /// Decodes with FFmpeg: each frame's presentation time and mean luma from the `showinfo`
    /// filter, the audio as mono 16-bit from the stream's start time (the edit list applied).
    static func measureWithFFmpeg(_ path: String) throws -> SyncMeasurement {
        let frames = try run("ffmpeg", ["-nostdin", "-nostats", "-i", path, "-map", "0:v", "-vf", "showinfo", "-f", "null", "-"])
        let audio = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"])
        #expect(frames.status == 0 && audio.status == 0, "ffmpeg: \(audio.error)")
        var flashes: [Double] = []
        var frameCount = 0
        for line in frames.error.split(whereSeparator: \.isNewline) where line.contains("Parsed_showinfo") && line.contains("pts_time:") {
            frameCount += 1
            guard let time = field(line, after: "pts_time:").flatMap(Double.init),
                  let luma = field(line, after: "mean:[").flatMap(Double.init) else { continue }
            if luma > 200 { flashes.append(time) }
        }
        #expect(frameCount > 0, "ffmpeg's showinfo listed no frame of \(path)")
        let stream = try #require(try ffprobeStreams(path).first { $0.codec_type == "audio" })
        let start = Double(stream.start_time ?? "0") ?? 0
        let rate = Double(stream.sample_rate ?? "") ?? 0
        let samples = int16Samples(audio.outputData)
        return SyncMeasurement(flashes: flashes, clicks: clicks(in: samples, rate: rate) { start + Double($0) / rate })
    }

    /// The text after `marker` in `line` up to the next space.
    static func field(_ line: Substring, after marker: String) -> String? {
        guard let range = line.range(of: marker) else { return nil }
        return String(line[range.upperBound...].drop { $0 == " " }.prefix { $0 != " " && $0 != "]" })
    }

    /// Decodes with GStreamer (qtdemux applies the edit list; `avdec_aac`, which honours it, for
    /// AAC). Its scheduling log names every buffer reaching the two `identity` elements with its
    /// timestamp, and their segment events map timestamps to stream time.
    static func measureWithGStreamer(_ path: String, aac: Bool) throws -> SyncMeasurement {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let video = dir.file("v.raw"), audio = dir.file("a.raw")
        let pipeline = "filesrc location=\(path) ! qtdemux name=d "
            + "d.video_0 ! queue ! h264parse ! avdec_h264 ! videoconvert ! videoscale ! "
            + "video/x-raw,format=GRAY8,width=\(thumbnail.width),height=\(thumbnail.height) ! identity name=vid ! filesink location=\(video) "
            + "d.audio_0 ! queue ! \(aac ? "aacparse ! avdec_aac ! " : "")audioconvert ! audio/x-raw,format=S16LE,channels=1 ! "
            + "identity name=aud ! filesink location=\(audio)"
        let result = try run("/usr/bin/env", ["GST_DEBUG=GST_SCHEDULING:6,GST_EVENT:6", "GST_DEBUG_NO_COLOR=1", try toolPath("gst-launch-1.0")]
                             + pipeline.split(separator: " ").map(String.init))
        #expect(result.status == 0, "gst-launch: \(result.error.suffix(2000))")
        let log = GStreamerLog(result.error)
        let frames = try [UInt8](Data(contentsOf: URL(fileURLWithPath: video)))
        let samples = int16Samples(try Data(contentsOf: URL(fileURLWithPath: audio)))
        let rate = Double(try #require(try ffprobeStreams(path).first { $0.codec_type == "audio" }?.sample_rate).flatMap(Double.init) ?? 0)
        // Sample i's time: the time of the buffer holding it plus its place in that buffer.
        var starts: [(index: Int, time: Double)] = []
        var index = 0
        for buffer in log.buffers("aud") {
            starts.append((index, buffer.time))
            index += buffer.bytes / 2
        }
        let size = thumbnail.width * thumbnail.height
        let times = log.buffers("vid").map(\.time)
        #expect(frames.count / size == times.count, "\(frames.count / size) frames decoded, \(times.count) timestamps")
        let flashes = (0..<min(frames.count / size, times.count)).filter { i in
            frames[(i * size)..<((i + 1) * size)].reduce(0) { $0 + Int($1) } > 200 * size
        }.map { times[$0] }
        return SyncMeasurement(flashes: flashes, clicks: clicks(in: samples, rate: rate) { i in
            let buffer = starts.last { $0.index <= i } ?? (0, 0)
            return buffer.time + Double(i - buffer.index) / rate
        })
    }

    /// The onsets of the clicks: the first sample past half the loudest, then nothing for
    /// half a second.
    static func clicks(in samples: [Int16], rate: Double, time: (Int) -> Double) -> [Double] {
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        guard peak > 1000, rate > 0 else { return [] }
        var onsets: [Double] = []
        var i = 0
        while i < samples.count {
            if abs(Int(samples[i])) * 2 > peak {
                onsets.append(time(i))
                i += Int(rate / 2)
            } else {
                i += 1
            }
        }
        return onsets
    }

    static func int16Samples(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) } }
    }
}

/// What GStreamer's debug log says reached a pad: each buffer's size and timestamp, in stream
/// time (the pad's segment applied: qtdemux puts an edit list's media start there).
struct GStreamerLog {
    private let lines: [Substring]

    init(_ text: String) { lines = text.split(whereSeparator: \.isNewline) }

    /// The buffers that reached `<element>:sink`, in order, with their stream times.
    func buffers(_ element: String) -> [(bytes: Int, time: Double)] {
        let pad = "<\(element):sink>"
        var start = 0.0, base = 0.0
        var result: [(bytes: Int, time: Double)] = []
        for line in lines where line.contains(pad) {
            if line.contains("have event type segment") {
                start = Self.number(line, after: "start=(guint64)").map { $0 / 1e9 } ?? 0
                base = Self.number(line, after: "time=(guint64)").map { $0 / 1e9 } ?? 0
            } else if line.contains("calling chainfunction"), let pts = Self.clock(line, after: ", pts "),
                      let size = Self.number(line, after: ", size ") {
                result.append((Int(size), pts - start + base))
            }
        }
        return result
    }

    private static func number(_ line: Substring, after marker: String) -> Double? {
        guard let range = line.range(of: marker) else { return nil }
        return Double(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// A `H:MM:SS.nnnnnnnnn` time after `marker`, in seconds.
    private static func clock(_ line: Substring, after marker: String) -> Double? {
        guard let range = line.range(of: marker) else { return nil }
        let parts = line[range.upperBound...].prefix { $0 != "," }.split(separator: ":").compactMap { Double($0) }
        return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
    }
}

/// Y4M and WAV files with the synthetic sources' sync marks, for the file-source and mux cases.
enum SyncMarkFiles {
    /// `seconds` of 320x240 test pattern at `fps`, white at each whole second.
    static func writeY4M(_ path: String, seconds: Int, fps: Int = 30) throws {
        let renderer = TestPatternRenderer(width: 320, height: 240, pixelFormat: .i420)
        var file = Array("YUV4MPEG2 W320 H240 F\(fps):1 Ip A1:1 C420jpeg\n".utf8)
        var picture = [UInt8](repeating: 0, count: 320 * 240 * 3 / 2)
        for n in 0..<(seconds * fps) {
            picture.withUnsafeMutableBytes { raw in
                if n % fps == 0 { renderer.renderWhite(into: raw.baseAddress!) } else { renderer.render(frame: UInt64(n), into: raw.baseAddress!) }
            }
            file += Array("FRAME\n".utf8) + picture
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    /// `seconds` of 16-bit stereo at `rate`, silent but for a 1 ms click at each whole second.
    static func writeWAV(_ path: String, seconds: Int, rate: Int = 48_000) throws {
        let frames = seconds * rate
        var samples = [Int16](repeating: 0, count: frames * 2)
        for second in 0..<seconds {
            for i in (second * rate)..<(second * rate + rate / 1000) { samples[2 * i] = 16384; samples[2 * i + 1] = 16384 }
        }
        func le32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian, Array.init) }
        func le16(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(v).littleEndian, Array.init) }
        let data = samples.withUnsafeBytes { Array($0) }
        var file = Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(2)
        file += le32(rate) + le32(rate * 4) + le16(4) + le16(16) + Array("data".utf8) + le32(data.count) + data
        try Data(file).write(to: URL(fileURLWithPath: path))
    }
}

/// Plays `path` in headless Chromium for a moment and reads how many bytes of its audio were
/// decoded (`webkitAudioDecodedByteCount`), with what the page showed.
func chromiumAudioDecoded(of path: String, in dir: TemporaryDirectory) throws -> (bytes: Int, text: String) {
    let page = """
        <html><body><video id="v" src="file://\(path)" autoplay></video><pre id="out">pending</pre><script>
        const v = document.getElementById('v');
        v.addEventListener('error', () => { document.getElementById('out').textContent = 'error ' + (v.error && v.error.code); });
        setTimeout(() => { document.getElementById('out').textContent = 'audio=' + v.webkitAudioDecodedByteCount; }, 1500);
        </script></body></html>
        """
    try page.write(toFile: dir.file("page.html"), atomically: true, encoding: .utf8)
    let result = try run("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required",
                                      "--allow-file-access-from-files", "--virtual-time-budget=4000", "--dump-dom",
                                      "file://" + dir.file("page.html")])
    let text = String(result.output.components(separatedBy: "<pre id=\"out\">").last?.prefix { $0 != "<" } ?? "")
    return (text.hasPrefix("audio=") ? Int(text.dropFirst(6)) ?? 0 : 0, text)
}

/// Plays `path` in headless Chromium for a moment and reads how many video frames it decoded
/// (`webkitDecodedFrameCount`) and the picture's size, with what the page showed.
func chromiumPlayback(of path: String, in dir: TemporaryDirectory) throws -> (frames: Int, text: String) {
    let page = """
        <html><body><video id="v" src="file://\(path)" autoplay muted></video><pre id="out">pending</pre><script>
        const v = document.getElementById('v');
        v.addEventListener('error', () => { document.getElementById('out').textContent = 'error ' + (v.error && v.error.code); });
        setTimeout(() => { document.getElementById('out').textContent =
            'frames=' + v.webkitDecodedFrameCount + ' size=' + v.videoWidth + 'x' + v.videoHeight; }, 1500);
        </script></body></html>
        """
    try page.write(toFile: dir.file("play.html"), atomically: true, encoding: .utf8)
    let result = try run("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required",
                                      "--allow-file-access-from-files", "--virtual-time-budget=4000", "--dump-dom",
                                      "file://" + dir.file("play.html")])
    let text = String(result.output.components(separatedBy: "<pre id=\"out\">").last?.prefix { $0 != "<" } ?? "")
    let frames = text.hasPrefix("frames=") ? Int(text.dropFirst(7).prefix { $0.isNumber }) ?? 0 : 0
    return (frames, text)
}
