#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

/// Case e: a live recording from the test pattern in real time, like a camera's.
///
/// `live --output OUT.mov --seconds S [--size WxH] [--preset P]`: reports frames, drops and the
/// recorded duration; the harness takes CPU seconds from the process's rusage.
/// `pattern --output OUT.y4m --seconds S [--size WxH]` writes the same pictures as a Y4M file,
/// so the harness can give x264 alone exactly these frames.
func live(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let (width, height) = try size(options)
    let seconds = try options.number("--seconds", default: 10)
    var settings = H264EncoderSettings()
    settings.preset = options.value("--preset") ?? "veryfast"
    settings.keyframeInterval = Int(options.value("--keyint") ?? "250")
    let frames = Int(seconds * 30)
    let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), realTime: true,
                                       frameLimit: frames)
    let result = try await record(video: source, to: try options.required("--output"), settings: settings) { _ in }
    report("frames", Double(result.frameCount))
    report("dropped", Double(result.droppedFrameCount))
    let duration = result.duration.components
    report("recordedSeconds", Double(duration.seconds) + Double(duration.attoseconds) / 1e18)
}

func size(_ options: Options) throws -> (Int, Int) {
    let text = options.value("--size") ?? "1280x720"
    let parts = text.split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2 else { throw WorkerError("--size \(text) is not WIDTHxHEIGHT") }
    return (parts[0], parts[1])
}

/// Writes the test pattern's first `--seconds` × 30 pictures to a Y4M file, drawn by the same
/// source a live recording uses, out of real time.
func pattern(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let (width, height) = try size(options)
    let frames = Int(try options.number("--seconds", default: 10) * 30)
    let path = try options.required("--output")
    guard let file = fopen(path, "wb") else { throw WorkerError("cannot create \(path)") }
    defer { fclose(file) }
    let header = "YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n"
    fputs(header, file)
    let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), realTime: false,
                                       frameLimit: frames)
    let writer = UnsafeFile(file)
    let (done, finished) = AsyncStream.makeStream(of: Int.self)
    let counter = Counter()
    try source.start { event in
        switch event {
        case .frame(let frame):
            fputs("FRAME\n", writer.file)
            let bytes = frame.packedBytes()
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, writer.file) }
            counter.add()
        case .ended, .interrupted:
            finished.yield(counter.value)
            finished.finish()
        default:
            break
        }
    }
    var written = 0
    for await count in done { written = count }
    source.stop()
    guard written == frames else { throw WorkerError("the test pattern gave \(written) of \(frames) frames") }
    report("frames", Double(written))
}

struct UnsafeFile: @unchecked Sendable {
    let file: UnsafeMutablePointer<FILE>
    init(_ file: UnsafeMutablePointer<FILE>) { self.file = file }
}

final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func add() { value += 1 }  // only from the source's thread
}
