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
                    "chromium": "chromium", "cjpeg": "libjpeg-turbo-progs", "xmllint": "libxml2-utils", "gpsfake": "gpsd gpsd-clients python3-gps",
                    "gst-discoverer-1.0": "gstreamer1.0-plugins-base-apps"]

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
    let decoded = try decodeAllFramesTimed(path)
    return (decoded.videoFrames, decoded.errors)
}

/// Decodes every video frame of `path` with ffmpeg, as ``decodeAllFrames(_:)`` does, and also
/// returns where the last decoded frame ends on the movie's timeline, in seconds (0 without frames):
/// the span a recording kept even when it dropped frames or lowered its frame rate.
func decodeAllFramesTimed(_ path: String) throws -> (videoFrames: Int, end: Double, errors: String) {
    let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                    "-f", "framecrc", "-"])
    let lines = result.output.split(separator: "\n")
    let frames = lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }
    // "#tb 0: 1/30" names the time base; each frame is "stream, dts, pts, duration, size, crc".
    let base = lines.first { $0.hasPrefix("#tb 0:") }?.dropFirst(6).split(separator: "/")
        .compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? []
    let fields = frames.last?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    var end = 0.0
    if base.count == 2, base[1] > 0, fields.count >= 4, let pts = Double(fields[2]), let duration = Double(fields[3]) {
        end = (pts + duration) * base[0] / base[1]
    }
    return (frames.count, end, result.status == 0 ? result.error : "exit \(result.status): \(result.error)")
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

/// Waits until `condition` holds, such as an angle the capture service applies on its own task
/// or a line a program prints, looking every 5 ms; false if it still does not hold at `deadline`.
///
/// The deadline is for an outcome that does not come: one that comes returns at once, so it is
/// far off. A loaded machine (two cores, a sanitizer, other suites beside) may leave a task or a
/// thread waiting for seconds, and a test passes there as surely as on a warm one.
func eventually(deadline: Duration = .seconds(120), _ condition: @Sendable () async -> Bool) async -> Bool {
    let (seconds, attoseconds) = deadline.components
    let end = MonotonicClock.now() + UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    while MonotonicClock.now() < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// A program running beside the test, its standard output and error collected as they come, so
/// the test waits for what the program says (`movrec: recording to …`) before it signals it or
/// times anything, instead of guessing how long it takes to start: a sanitized build on a loaded
/// machine may take seconds.
final class RunningProgram: @unchecked Sendable {
    // @unchecked: `process` is only asked for its state and identifier after `run()`, which
    // Foundation synchronises; the collected bytes are under their own locks.
    let process = Process()
    private let outputData = LockedValue(Data()), errorData = LockedValue(Data())

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Each pipe read on a thread of its own until the program and its children close it.
        for (pipe, collected) in [(out, outputData), (err, errorData)] {
            DedicatedThread(name: "test-pipe") {
                while case let data = pipe.fileHandleForReading.availableData, !data.isEmpty {
                    collected.withLock { $0.append(data) }
                }
            }.detach()
        }
    }

    /// What the program has written to standard output so far.
    var output: String { String(decoding: outputData.withLock { $0 }, as: UTF8.self) }

    /// What the program has written to standard error so far.
    var error: String { String(decoding: errorData.withLock { $0 }, as: UTF8.self) }

    /// Waits until standard error holds `text`; false if it did not by the deadline.
    func waitForError(containing text: String) async -> Bool {
        await eventually { self.error.contains(text) }
    }

    /// Sends `signal` to the program.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the program to end; false if it still runs at the deadline.
    func waitForExit(deadline: Duration = .seconds(120)) async -> Bool {
        await eventually(deadline: deadline) { !self.process.isRunning }
    }

    /// Kills the program if it still runs and waits for it (a test's `defer`).
    func killIfRunning() {
        if process.isRunning { send(SIGKILL) }
        process.waitUntilExit()
    }
}

/// The fragments of a growing fragmented movie that are whole on the disk: each `moof` followed
/// by its `mdat`, every byte of both written. Read from the top-level atom headers alone, so it
/// does not lean on the reader under test, and a torn last atom is not counted.
func wholeFragmentCount(_ path: String) -> Int {
    guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
    defer { try? handle.close() }
    guard let size = try? handle.seekToEnd() else { return 0 }
    var offset: UInt64 = 0, count = 0, afterMoof = false
    while offset + 8 <= size {
        guard (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 16), header.count >= 8 else { break }
        let bytes = [UInt8](header)
        var atomSize = bytes[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        if atomSize == 1, bytes.count == 16 { atomSize = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        // Size 0 (to the end of the file) is an atom still being written.
        guard atomSize >= 8, offset + atomSize <= size else { break }
        let type = String(decoding: bytes[4..<8], as: UTF8.self)
        if type == "mdat" && afterMoof { count += 1 }
        afterMoof = type == "moof"
        offset += atomSize
    }
    return count
}

/// A task executor that runs its jobs on one thread of its own, for a test's reader of a bounded
/// event stream. On the cooperative pool (two threads on two cores) such a reader stalls while
/// other suites' blocking calls hold both threads, and the stream drops what it cannot keep; a
/// thread of its own is scheduled by the kernel, as the recording's threads are.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `isFinished` are guarded by `lock`.
    private let lock = ConditionLock()
    private var jobs: [UnownedJob] = []
    private var isFinished = false

    init(name: String) {
        DedicatedThread(name: name) { [self] in runJobs() }.detach()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock {
            jobs.append(job)
            lock.broadcast()
        }
    }

    /// Lets the thread end once the jobs enqueued so far have run.
    func finish() {
        lock.withLock {
            isFinished = true
            lock.broadcast()
        }
    }

    private func runJobs() {
        while true {
            let next: UnownedJob? = lock.withLock {
                while jobs.isEmpty && !isFinished { lock.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A movie output's events, every one in order, read as they come on a thread of their own
/// from before the recording starts, so a test can wait for one (a file started, a clip
/// finished) and count them all: the stream keeps only the newest 64 while its reader is behind.
final class RecordingEvents: Sendable {
    private let seen = LockedValue<[MovieFileOutput.Event]>([])
    private let reader: Task<Void, Never>

    /// Reads `output`'s events until its recording finishes (or the output goes away).
    init(of output: MovieFileOutput) {
        let executor = DedicatedThreadExecutor(name: "test-events")
        reader = Task(executorPreference: executor) { [events = output.events, seen] in
            for await event in events {
                seen.withLock { $0.append(event) }
                if case .didFinishRecording = event { break }
            }
            executor.finish()
        }
    }

    /// The events so far.
    var all: [MovieFileOutput.Event] { seen.withLock { $0 } }

    /// Waits until the events so far satisfy `condition`; false if they did not by the deadline.
    func waitFor(_ condition: @escaping @Sendable ([MovieFileOutput.Event]) -> Bool) async -> Bool {
        await eventually { condition(self.all) }
    }

    /// Waits until the recording has started: its first frame was accepted.
    func waitForStart() async -> Bool {
        await waitFor { $0.contains { if case .didStartRecording = $0 { true } else { false } } }
    }

    /// The capture time of the recording's first frame (monotonic nanoseconds), once it started.
    var startTime: UInt64? {
        all.lazy.compactMap { if case .didStartRecording(_, let time) = $0 { time } else { nil } }.first
    }

    /// Waits until the recording went on into the file at `path` (its first frame is in it).
    func waitForSegment(_ path: String) async -> Bool {
        await waitFor { $0.contains { if case .didStartSegment(let started) = $0 { started == path } else { false } } }
    }

    /// Every event, once the recording has finished.
    func untilFinished() async -> [MovieFileOutput.Event] {
        await reader.value
        return all
    }
}
