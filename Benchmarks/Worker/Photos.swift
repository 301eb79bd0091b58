#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

// Case j: photos.
//
// `photo-burst --input IN.y4m --count N --codec jpeg|hevc --directory DIR [--prioritize P]`:
// N photos of consecutive frames of a Y4M file through a session and a `PhotoOutput` with
// responsive capture, each started as soon as the readiness coordinator says `ready` (the frame
// before it was chosen and a slot is free). Reports photos per second from the first request to
// the last file.
//
// `photo-lag --fps F --count N [--no-zero-shutter-lag]`: N photos of the live 640x480 test
// pattern at F fps, requested at spread phases of the frame interval; reports the median and
// worst distance (ms) between each request and its frame's capture time, and the median lag.
//
// `photo-recording --seconds S --photos N --directory DIR`: a live 1280x720 30 fps recording
// with N photos spread over it; reports the movie's frames and dropped frames.
//
// `photo-idle --seconds S [--no-zero-shutter-lag]`: a live 1920x1080 30 fps session with a photo
// output and no photo: the harness compares the CPU time with and without the ring's copies.

func photoBurst(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let count = Int(try options.number("--count", default: 30))
    let codec: PhotoCodec = options.value("--codec") == "hevc" ? .hevc : .jpeg
    let prioritization = PhotoQualityPrioritization(rawValue: options.value("--prioritize") ?? "balanced") ?? .balanced
    let directory = try options.required("--directory")
    let output = PhotoOutput()
    output.isZeroShutterLagEnabled = false
    output.isResponsiveCaptureEnabled = true
    let coordinator = PhotoOutputReadinessCoordinator(photoOutput: output)
    let session = try await runningSession(try Y4MFileSource(path: try options.required("--input")), output)
    var updates = coordinator.readinessUpdates.makeAsyncIterator()
    while await updates.next() != .ready {}
    let start = MonotonicClock.now()
    var captures: [Task<PhotoResult, any Error>] = []
    for index in 0..<count {
        let settings = PhotoSettings(codec: codec, qualityPrioritization: prioritization)
        coordinator.startTrackingCaptureRequest(using: settings)
        let path = "\(directory)/burst-\(index).\(codec == .hevc ? "heic" : "jpg")"
        captures.append(Task { try await output.capturePhoto(to: path, overwrite: true, settings: settings) })
        while await updates.next() != .ready {}
    }
    var frames: [UInt64] = []
    for (index, capture) in captures.enumerated() {
        do {
            frames.append(try await capture.value.frameSequenceNumber)
        } catch {
            fail("photo-burst: photo \(index + 1) of \(count) failed after frames \(frames): \(error)")
        }
    }
    await output.finishProcessing()
    let seconds = Double(MonotonicClock.now() - start) / 1e9
    await session.stopRunning()
    guard Set(frames).count == count else { fail("photo-burst: \(count) photos took \(Set(frames).count) different frames: \(frames)") }
    report("photosPerSecond", Double(count) / seconds)
}

func photoLag(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let fps = UInt32(try options.number("--fps", default: 30))
    let count = Int(try options.number("--count", default: 20))
    let output = PhotoOutput()
    output.isZeroShutterLagEnabled = !options.flags.contains("--no-zero-shutter-lag")
    let directory = try options.required("--directory")
    let session = try await runningSession(TestPatternSource(width: 640, height: 480, frameRate: FrameRate(frames: fps)), output)
    try await Task.sleep(for: .milliseconds(600))
    let interval = 1e9 / Double(fps)
    var lags: [Double] = []
    for index in 0..<count {
        // Requests at phases spread over the frame interval (a step of 0.37 intervals).
        try await Task.sleep(for: .nanoseconds(Int64(interval * (1 + Double(index % 8) * 0.37))))
        let result = try await output.capturePhoto(to: "\(directory)/lag.jpg", overwrite: true,
                                                   settings: PhotoSettings(qualityPrioritization: .speed))
        let lag = result.shutterLag.components
        lags.append(Double(lag.seconds) * 1000 + Double(lag.attoseconds) / 1e15)
    }
    await session.stopRunning()
    let distances = lags.map(abs).sorted()
    report("medianDistanceMs", distances[distances.count / 2])
    report("worstDistanceMs", distances.last ?? .nan)
    report("medianLagMs", lags.sorted()[lags.count / 2])
}

func photoRecording(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let seconds = try options.number("--seconds", default: 10)
    let photos = Int(try options.number("--photos", default: 30))
    let directory = try options.required("--directory")
    let output = PhotoOutput()
    output.isResponsiveCaptureEnabled = true
    let movie = MovieFileOutput()
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(TestPatternSource(width: 1280, height: 720, frameRate: FrameRate(frames: 30)))
        try config.addInput(try ToneSource(realTime: true))
        try config.addOutput(movie)
        try config.addOutput(output)
    }
    try await session.startRunning()
    try await movie.startRecording(to: "\(directory)/recording.mov", overwrite: true)
    var captures: [Task<PhotoResult, any Error>] = []
    for index in 0..<photos {
        try await Task.sleep(for: .nanoseconds(Int64(seconds * 1e9 / Double(photos + 1))))
        captures.append(Task { try await output.capturePhoto(to: "\(directory)/during-\(index).jpg", overwrite: true) })
    }
    for capture in captures { _ = try await capture.value }
    guard let result = await movie.stopRecording() else { fail("photo-recording: the recording did not stop with a result") }
    await output.finishProcessing()
    await session.stopRunning()
    report("frames", Double(result.frameCount))
    report("dropped", Double(result.droppedFrameCount))
    report("photos", Double(captures.count))
}

func photoIdle(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let seconds = try options.number("--seconds", default: 10)
    let output = PhotoOutput()
    output.isZeroShutterLagEnabled = !options.flags.contains("--no-zero-shutter-lag")
    let frames = Int(seconds * 30)
    let source = try TestPatternSource(width: 1920, height: 1080, frameRate: FrameRate(frames: 30), realTime: true, frameLimit: frames)
    let session = try await runningSession(source, output)
    try await Task.sleep(for: .nanoseconds(Int64(seconds * 1e9)))
    await session.stopRunning()
    report("frames", Double(frames))
}

/// A started session with `video` and `output`.
private func runningSession(_ video: any VideoSource, _ output: PhotoOutput) async throws -> CaptureSession {
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(video)
        try config.addOutput(output)
    }
    try await session.startRunning()
    return session
}
