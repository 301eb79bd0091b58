import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The repository's Fixtures folder.
let fixturesDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Fixtures").path
}()

func fixture(_ name: String) -> String { fixturesDirectory + "/" + name }

/// The creation time every golden movie carries: 2026-01-01 00:00:00 UTC.
let goldenCreationTime = QuickTimeTimestamp(unixSeconds: 1_767_225_600)

/// A fresh temporary directory, removed by the caller with `cleanUp`.
struct TemporaryDirectory {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "movrec-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// The outcome of running a program.
struct ProgramResult {
    var status: Int32
    var outputData: Data
    var error: String
    var output: String { String(decoding: outputData, as: UTF8.self) }
}

/// Runs a program and waits for it; `environment` adds to (or replaces) the test's variables,
/// for what must not show on a command line.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try toolPath(executable))
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes while the program runs so neither fills up; the error reader hands its
    // bytes over under a lock and signals when it is done (a signalled wait, not a poll).
    let errorData = LockedValue(Data())
    let errorRead = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        let data = err.fileHandleForReading.readDataToEndOfFile()
        errorData.withLock { $0 = data }
        errorRead.signal()
    }
    let outputData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    errorRead.wait()
    return ProgramResult(status: process.terminationStatus, outputData: outputData,
                         error: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
}

/// Debian packages that provide the tools the tests use as independent readers.
let toolPackages = ["ffprobe": "ffmpeg", "ffmpeg": "ffmpeg", "mediainfo": "mediainfo", "exiftool": "libimage-exiftool-perl",
                    "x264": "x264", "x265": "x265", "gst-launch-1.0": "gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad gstreamer1.0-libav",
                    "chromium": "chromium", "cjpeg": "libjpeg-turbo-progs", "xmllint": "libxml2-utils", "gpsfake": "gpsd gpsd-clients python3-gps"]

struct MissingTool: Error, CustomStringConvertible {
    let description: String
}

/// The path of a tool, installing its Debian package when it is missing and the tests run as
/// root; otherwise an error that says what to install.
func toolPath(_ name: String) throws -> String {
    func find() -> String? {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        return nil
    }
    if let path = find() { return path }
    let package = toolPackages[name] ?? name
    if getuid() == 0 {
        _ = try? run("/usr/bin/env", ["DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq"]
                     + package.split(separator: " ").map(String.init))
        if let path = find() { return path }
    }
    throw MissingTool(description: "the test needs '\(name)': install it with `sudo apt-get install \(package)`")
}

/// The movrec executable built with the tests.
func movrecPath() throws -> String { try builtProductPath("movrec") }

/// An executable built with the tests: movrec from this package, bench-worker and bench-spawn
/// from the Benchmarks package (Scripts/test builds it first).
func builtProductPath(_ name: String) throws -> String {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let root = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent()
    for candidate in [bundle.appendingPathComponent(name).path,
                      bundle.deletingLastPathComponent().appendingPathComponent(name).path,
                      root.appendingPathComponent(".build/debug/\(name)").path,
                      root.appendingPathComponent("Benchmarks/.build/debug/\(name)").path]
    where FileManager.default.isExecutableFile(atPath: candidate) {
        return candidate
    }
    throw MissingTool(description: "\(name) was not built next to the tests; run `swift build --build-tests`, and `swift build --package-path Benchmarks` for the benchmark executables")
}

/// What ffprobe reports of a movie's streams.
struct ProbedStream: Decodable {
    var codec_name: String?
    var codec_tag_string: String?
    var codec_type: String?
    var width: Int?
    var height: Int?
    var duration: String?
    var start_time: String?
    var nb_frames: String?
    var avg_frame_rate: String?
    var sample_rate: String?
    var channels: Int?
    var side_data_list: [SideData]?
    struct SideData: Decodable {
        var side_data_type: String?
        var rotation: Int?
    }
    var rotation: Int? { side_data_list?.first { $0.side_data_type == "Display Matrix" }?.rotation }
}

func ffprobeStreams(_ path: String) throws -> [ProbedStream] {
    let result = try run("ffprobe", ["-v", "error", "-show_streams", "-of", "json", path])
    #expect(result.status == 0, "ffprobe failed on \(path): \(result.error)")
    struct Output: Decodable { var streams: [ProbedStream] }
    return try JSONDecoder().decode(Output.self, from: Data(result.output.utf8)).streams
}

/// Decodes every frame with ffmpeg; returns the number of decoded video frames and ffmpeg's
/// error output (empty when clean).
///
/// `-fps_mode passthrough` keeps ffmpeg from dropping or repeating frames to fit a constant
/// output rate: a camera's timestamps jitter, and ffmpeg may guess a rate such as 300 fps from
/// them and then drop frames that fall into the same output slot.
func decodeAllFrames(_ path: String) throws -> (videoFrames: Int, errors: String) {
    let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                    "-f", "framecrc", "-"])
    let frames = result.output.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.count
    return (frames, result.status == 0 ? result.error : "exit \(result.status): \(result.error)")
}

/// The markers of a JPEG's header segments after SOI, up to the start of scan.
func jpegHeaderMarkers(_ bytes: [UInt8]) -> [UInt8] {
    var markers: [UInt8] = []
    var i = 2
    while i + 4 <= bytes.count, bytes[i] == 0xFF {
        markers.append(bytes[i + 1])
        if bytes[i + 1] == 0xDA { break }
        i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
    }
    return markers
}

/// Runs a session with a live test pattern and `output`, then stops it, whatever `body` throws.
func withTestPatternSession<T>(_ output: PhotoOutput, width: Int, height: Int, fps: UInt32,
                               pixelFormat: PixelFormat = .i420, _ body: () async throws -> T) async throws -> T {
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: fps),
                                              pixelFormat: pixelFormat))
        try config.addOutput(output)
    }
    try await session.startRunning()
    do {
        let result = try await body()
        await session.stopRunning()
        return result
    } catch {
        await session.stopRunning()
        throw error
    }
}

/// Waits up to two seconds until `condition` holds, such as an angle the capture service
/// applies on its own task.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<400 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// Waits until `condition` holds or `deadline` has passed on the clock (not a count of
/// polls, which a loaded machine stretches).
func eventually(within deadline: Duration, _ condition: @Sendable () async -> Bool) async -> Bool {
    let end = ContinuousClock.now + deadline
    while ContinuousClock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}
