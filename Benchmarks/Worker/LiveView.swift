#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

/// Case k's cost: `live-view --seconds S [--size WxH] [--viewers N] [--no-live] --output OUT.mov`
/// records the test pattern and the tone in real time, as case e does, and unless `--no-live`
/// also streams the live view to `N` viewers (curl processes reading `/video.mp4` from a
/// loopback server). Reports the recording's frames and drops, the stream's, and `recorderCPU`,
/// this process's own CPU seconds before the viewers (its children) are reaped, so their CPU is
/// not counted as the recorder's.
func liveView(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let (width, height) = try size(options)
    let seconds = try options.number("--seconds", default: 10)
    let viewers = Int(options.value("--viewers") ?? "1") ?? 1
    let session = CaptureSession()
    let movie = MovieFileOutput()
    let live = options.flags.contains("--no-live") ? nil : LiveStreamOutput()
    let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), realTime: true,
                                       frameLimit: Int(seconds * 30))
    try await session.configure { config in
        try config.addInput(source)
        try config.addInput(try ToneSource())
        try config.addOutput(movie)
        if let live { try config.addOutput(live) }
    }
    let server = try live.map { try LiveViewServer(output: $0, port: 0) }
    try await session.startRunning()
    try await movie.startRecording(to: try options.required("--output"), overwrite: true)
    var children: [pid_t] = []
    if let server {
        try await Task.sleep(for: .milliseconds(300))  // the stream's first chunk
        for _ in 0..<viewers { children.append(try spawnViewer(port: server.port)) }
    }
    var result: RecordingResult?
    for await event in movie.events {
        if case .didFinishRecording(let finished) = event { result = finished; break }
    }
    await session.stopRunning()
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    report("recorderCPU", Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6)
    report("frames", Double(result?.frameCount ?? 0))
    report("dropped", Double(result?.droppedFrameCount ?? -1))
    report("liveStreamed", Double(live?.streamedFrameCount ?? 0))
    report("liveDropped", Double(live?.droppedFrameCount ?? 0))
    await server?.stop()
    for child in children {
        kill(child, SIGTERM)
        var status: Int32 = 0
        waitpid(child, &status, 0)
    }
}

/// Starts `curl` reading the stream without its audio into /dev/null.
private func spawnViewer(port: Int) throws -> pid_t {
    let arguments = ["curl", "-s", "-N", "-o", "/dev/null", "http://127.0.0.1:\(port)/video.mp4"]
    var pid: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    let status = posix_spawnp(&pid, "curl", nil, nil, argv, environ)
    guard status == 0 else { throw WorkerError("starting curl failed (\(status))") }
    return pid
}
