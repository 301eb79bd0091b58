import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The live view's suites, one at a time and, in Scripts/test, apart from the other suites:
/// they assert that a recording beside the live view drops no frame, which a machine busy with
/// other suites' encoders cannot promise.
@Suite(.serialized) enum LiveViewTestGroup {}

/// A running session with the test pattern, a live stream output and its server.
struct LiveSession {
    let session: CaptureSession
    let live: LiveStreamOutput
    let server: LiveViewServer
    var base: String { "http://127.0.0.1:\(server.port)" }

    /// Starts the test pattern (and the tone, with `audio`) into `live` and `extra` outputs,
    /// served on a free loopback port.
    static func start(width: Int = 640, height: Int = 360, fps: UInt32 = 30, audio: Bool = true,
                      live: LiveStreamOutput = LiveStreamOutput(), extra: [any OutputService] = [],
                      accessToken: String? = nil) async throws -> LiveSession {
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: fps)))
            if audio { try config.addInput(ToneSource()) }
            try config.addOutput(live)
            for output in extra { try config.addOutput(output) }
        }
        let server = try LiveViewServer(output: live, port: 0, accessToken: accessToken)
        try await session.startRunning()
        return LiveSession(session: session, live: live, server: server)
    }

    func stop() async {
        await server.stop()
        await session.stopRunning()
    }
}

/// What `Tests/LiveView/browser.py` reported.
struct BrowserReport: @unchecked Sendable {
    // @unchecked: the values are JSON objects (strings, numbers, arrays, dictionaries), never shared mutably.
    var waited: Bool
    var values: [Any]
    var samples: [Any]
    var error: String?
    var status: Int32
}

/// The browser driver's path.
let browserScript: String = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent()
    .appendingPathComponent("Tests/LiveView/browser.py").path

/// Opens `url` in headless Chromium through `browser.py` with `arguments`.
func browse(_ url: String, _ arguments: [String]) throws -> BrowserReport {
    _ = try toolPath("chromium")
    let result = try run("/usr/bin/env", ["python3", browserScript, url] + arguments)
    let object = (try? JSONSerialization.jsonObject(with: result.outputData)) as? [String: Any] ?? [:]
    return BrowserReport(waited: object["waited"] as? Bool ?? false, values: object["values"] as? [Any] ?? [],
                         samples: object["samples"] as? [Any] ?? [], error: object["error"] as? String ?? (object.isEmpty ? result.error : nil),
                         status: result.status)
}

/// The JavaScript that returns the video's current picture as luma, base64, at its own size.
let pictureScript = """
    (() => { const v = document.getElementById('video'); const c = document.createElement('canvas');
    c.width = v.videoWidth; c.height = v.videoHeight; const g = c.getContext('2d'); g.drawImage(v, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data, y = new Uint8Array(c.width * c.height);
    for (let i = 0; i < y.length; i++) y[i] = (d[4 * i] * 77 + d[4 * i + 1] * 150 + d[4 * i + 2] * 29) >> 8;
    let s = ''; for (let i = 0; i < y.length; i += 8192) s += String.fromCharCode.apply(null, y.subarray(i, i + 8192));
    return JSON.stringify({w: c.width, h: c.height, y: btoa(s)}); })()
    """

/// The test pattern's frame number read from a luma picture the page gave (`pictureScript`).
func counter(inPicture json: Any, renderer: TestPatternRenderer) -> Int? {
    guard let text = json as? String, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
          let width = object["w"] as? Int, let encoded = object["y"] as? String, let luma = Data(base64Encoded: encoded)
    else { return nil }
    let bytes = [UInt8](luma)
    return readCounter(renderer: renderer) { x, y, lit in (bytes[y * width + x] > 125) == lit }
}

/// A PNG's pixels as RGB, decoded by ffmpeg.
func rgbPixels(ofPNG path: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
    let probe = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
    let size = probe.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    let decoded = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    guard size.count == 2, decoded.outputData.count == size[0] * size[1] * 3 else {
        throw MissingTool(description: "ffmpeg could not decode \(path): \(decoded.error)")
    }
    return (size[0], size[1], [UInt8](decoded.outputData))
}

/// The centre and count of the pixels that `matches` accepts.
func centroid(_ image: (width: Int, height: Int, rgb: [UInt8]), _ matches: ((r: Int, g: Int, b: Int)) -> Bool) -> (x: Double, y: Double, count: Int) {
    var sx = 0.0, sy = 0.0, n = 0
    for y in 0..<image.height {
        for x in 0..<image.width {
            let i = (y * image.width + x) * 3
            if matches((Int(image.rgb[i]), Int(image.rgb[i + 1]), Int(image.rgb[i + 2]))) {
                sx += Double(x); sy += Double(y); n += 1
            }
        }
    }
    return n == 0 ? (0, 0, 0) : (sx / Double(n), sy / Double(n), n)
}


/// An HTTP GET with curl: the status and the body.
func httpGet(_ url: String, maxSeconds: Double = 10) throws -> (status: Int, body: Data) {
    let result = try run("/usr/bin/curl", ["-s", "-m", String(maxSeconds), "-w", "\n%{http_code}", url])
    var data = result.outputData
    guard let newline = data.lastIndex(of: UInt8(ascii: "\n")) else { return (0, data) }
    let status = Int(String(decoding: data[(newline + 1)...], as: UTF8.self)) ?? 0
    data = data.prefix(upTo: newline)
    return (status, data)
}
