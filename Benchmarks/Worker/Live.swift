#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
@_spi(Benchmarks) import MovieCapture
import MovieEncoding
import MovieContainer

/// Case e: a live recording from the test pattern and the tone in real time, like a camera's and
/// a microphone's.
///
/// `live --output OUT.mov --seconds S [--size WxH] [--preset P] [--audio aac|lpcm|none]`: reports
/// frames, drops and the recorded duration; the harness takes CPU seconds from the process's
/// rusage. The audio is AAC by default, as a recording's is.
/// `pattern --output OUT.y4m --seconds S [--size WxH]` writes the same pictures as a Y4M file,
/// so the harness can give x264 alone exactly these frames.
func live(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let (width, height) = try size(options)
    let seconds = try options.number("--seconds", default: 10)
    var settings = VideoEncoderSettings()
    settings.preset = options.value("--preset") ?? "veryfast"
    settings.keyframeInterval = Int(options.value("--keyint") ?? "250")
    let frames = Int(seconds * 30)
    let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), realTime: true,
                                       frameLimit: frames)
    let (tone, audioSettings) = try audio(options, realTime: true)
    let result = try await record(video: source, audio: tone, audioSettings: audioSettings, to: try options.required("--output"),
                                  settings: settings) { _ in }
    report("frames", Double(result.frameCount))
    report("dropped", Double(result.droppedFrameCount))
    let duration = result.duration.components
    report("recordedSeconds", Double(duration.seconds) + Double(duration.attoseconds) / 1e18)
}

/// The tone and how it is stored, from `--audio aac|aac-drifting|lpcm|none` (AAC by default).
func audio(_ options: Options, realTime: Bool) throws -> ((any AudioSource)?, AudioEncoderSettings) {
    switch options.value("--audio") ?? "aac" {
    case "none": return (nil, .aac)
    case "aac": return (try ToneSource(realTime: realTime), .aac)
    // A microphone 50 ppm fast, as an ordinary sound card's crystal is: the recording measures
    // it and resamples the audio to follow the video's clock.
    case "aac-drifting": return (try ToneSource(crystalPartsPerMillion: 50), .aac)
    case "lpcm": return (try ToneSource(realTime: realTime), .lpcm)
    case let other: throw WorkerError("--audio \(other) is not aac, lpcm or none")
    }
}

/// The e line on file size: `size --output OUT.mov --seconds S --audio aac|lpcm`, the test
/// pattern and the tone recorded out of real time with the default settings; reports the file's
/// size.
func fileSize(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let seconds = try options.number("--seconds", default: 60)
    let video = try TestPatternSource(width: 1280, height: 720, frameRate: FrameRate(frames: 30), realTime: false,
                                      frameLimit: Int(seconds * 30))
    let (tone, audioSettings) = try audio(options, realTime: false)
    let path = try options.required("--output")
    let result = try await record(video: video, audio: tone, audioSettings: audioSettings, to: path,
                                  settings: VideoEncoderSettings()) { _ in }
    report("fileBytes", Double(result.fileSize))
    report("seconds", Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) / 1e18)
}

/// Writes the tone a live recording records (`ToneSource`'s defaults) to a WAV file:
/// `tone --output OUT.wav --seconds S`, for ffmpeg's AAC encoder to encode alone.
func tone(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let seconds = try options.number("--seconds", default: 10)
    let source = try ToneSource(realTime: false, durationFrames: Int(seconds * 48_000))
    let path = try options.required("--output")
    guard let file = fopen(path, "wb") else { throw WorkerError("cannot create \(path)") }
    defer { fclose(file) }
    let bytes = Int(seconds * 48_000) * 4
    var header = Array("RIFF".utf8) + le32(36 + bytes) + Array("WAVEfmt ".utf8) + le32(16) + [1, 0, 2, 0]
    header += le32(48_000) + le32(192_000) + [4, 0, 16, 0] + Array("data".utf8) + le32(bytes)
    _ = header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    let writer = UnsafeFile(file)
    let (done, finished) = AsyncStream.makeStream(of: Void.self)
    try source.start { event in
        switch event {
        case .buffer(let buffer): _ = buffer.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, writer.file) }
        case .ended, .interrupted: finished.finish()
        default: break
        }
    }
    for await _ in done {}
    source.stop()
}

private func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }

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

/// Case h: `segments --switches N --output 'DIR/seg-%03d.mov'`: the test pattern and the tone
/// live at 720p30 veryfast with AAC, a new segment every 0.2 s until N switches; reports frames,
/// drops, files and the writing thread's time per switch (median, p99, max, in ms).
func segments(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let switches = Int(try options.number("--switches", default: 100))
    let segmentFrames = 6
    let source = try TestPatternSource(width: 1280, height: 720, frameRate: FrameRate(frames: 30), realTime: true,
                                       frameLimit: (switches + 1) * segmentFrames)
    let session = CaptureSession()
    let movie = MovieFileOutput()
    movie.segmentDuration = .milliseconds(200)
    try await session.configure { config in
        try config.addInput(source)
        try config.addInput(ToneSource())
        try config.addOutput(movie)
    }
    try await session.startRunning()
    // Read from before the recording starts, so no segment's event is lost from the buffer.
    let reader = Task { [events = movie.events] in
        var finished: [RecordingResult] = []
        for await event in events {
            if case .didFinishSegment(let result) = event { finished.append(result) }
            if case .didFinishRecording(let result) = event { return (finished, Optional(result)) }
        }
        return (finished, nil)
    }
    try await movie.startRecording(toSegments: try SegmentFileNames(pattern: try options.required("--output")), overwrite: true)
    let (finished, last) = await reader.value
    await session.stopRunning()
    guard let last else { throw WorkerError("the segmented recording did not finish") }
    let costs = finished.map { Double($0.finalizationDuration.components.attoseconds) / 1e15 + Double($0.finalizationDuration.components.seconds) * 1000 }.sorted()
    report("frames", Double(finished.reduce(last.frameCount) { $0 + $1.frameCount }))
    report("dropped", Double(finished.reduce(last.droppedFrameCount) { $0 + $1.droppedFrameCount }))
    report("segments", Double(finished.count + 1))
    report("switchMedianMs", costs.isEmpty ? .nan : costs[costs.count / 2])
    report("switchP99Ms", costs.isEmpty ? .nan : costs[min(costs.count - 1, costs.count * 99 / 100)])
    report("switchMaxMs", costs.last ?? .nan)
}
