import MovieContainer
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import Synchronization

/// `movrec record OUT.mov [--video DEVICE|testsrc|FILE.y4m] [--audio DEVICE|tone|FILE.wav|none] …`
func record(_ arguments: Arguments) async throws -> Int32 {
    var args = arguments
    let videoSpec = try args.option("--video") ?? "/dev/video0"
    let audioSpec = try args.option("--audio") ?? "none"
    let sizeText = try args.option("--size")
    let fpsText = try args.option("--fps")
    let rotationOption = try args.option("--rotation")
    let rotationText = rotationOption ?? "0"
    let mirror = args.flag("--mirror")
    let gravityText = try args.option("--gravity")
    let mountingText = try args.option("--mounting")
    let durationText = try args.option("--duration")
    let maxSizeText = try args.option("--max-size")
    let minFreeText = try args.option("--min-free")
    let noFragments = args.flag("--no-fragments")
    let fragmentText = try args.option("--fragment-interval")
    let syncFragments = args.flag("--sync")
    let overwrite = args.flag("--overwrite")
    var settings = H264EncoderSettings()
    if let preset = try args.option("--preset") { settings.preset = preset }
    settings.tune = try args.option("--tune")
    if let profile = try args.option("--profile") { settings.profile = profile }
    let crfText = try args.option("--crf")
    let bitrateText = try args.option("--bitrate")
    let keyintText = try args.option("--keyint")
    let bframesText = try args.option("--bframes")
    let threadsText = try args.option("--threads")
    let x264Options = try args.option("--x264-params")
    let quiet = args.flag("--quiet")
    try args.finish(positionalCount: 1...1)
    let output = args.positional[0]

    guard let angle = Double(rotationText) else { throw Arguments.UsageError(description: "--rotation \(rotationText) is not a number") }
    let orientation = try VideoOrientation(rotationAngle: angle, isMirrored: mirror)
    var size: (Int, Int)?
    if let sizeText {
        let parts = sizeText.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw Arguments.UsageError(description: "--size \(sizeText) is not WIDTHxHEIGHT, such as 1280x720")
        }
        size = (w, h)
    }
    let frameRate = try fpsText.map(parseFrameRate)
    if crfText != nil && bitrateText != nil { throw Arguments.UsageError(description: "--crf and --bitrate exclude each other") }
    if let crfText {
        guard let crf = Double(crfText) else { throw Arguments.UsageError(description: "--crf \(crfText) is not a number") }
        settings.rateControl = .constantQuality(crf: crf)
    }
    if let bitrateText {
        guard let kbps = Int(bitrateText), kbps > 0 else { throw Arguments.UsageError(description: "--bitrate \(bitrateText) is not a positive number of kbit/s") }
        settings.rateControl = .bitrate(kilobitsPerSecond: kbps, maximumKilobitsPerSecond: kbps, bufferKilobits: kbps)
    }
    func integer(_ text: String?, _ name: String) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), value >= 0 else { throw Arguments.UsageError(description: "\(name) \(text) is not a whole number") }
        return value
    }
    settings.keyframeInterval = try integer(keyintText, "--keyint")
    settings.maxBFrames = try integer(bframesText, "--bframes")
    settings.threads = try integer(threadsText, "--threads") ?? 0
    if let x264Options {
        for pair in x264Options.split(separator: ":") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            settings.options[String(kv[0])] = kv.count == 2 ? String(kv[1]) : "1"
        }
    }
    var maxDuration: Duration?
    if let durationText {
        guard let seconds = Double(durationText), seconds > 0, seconds.isFinite else {
            throw Arguments.UsageError(description: "--duration \(durationText) is not a positive number of seconds")
        }
        maxDuration = .nanoseconds(Int64(seconds * 1e9))
    }

    let video = try makeVideoSource(videoSpec, size: size, frameRate: frameRate)
    let audio = try makeAudioSource(audioSpec)
    let gravity = try gravityText.map(makeGravitySource)
    if gravity != nil && rotationOption != nil {
        throw Arguments.UsageError(description: "--rotation and --gravity exclude each other: the angle comes from one or the other")
    }
    let mounting = try mountingText.map(parseMounting) ?? (video is V4L2Camera ? nil : CameraMounting(position: .back))

    let service = CaptureService()
    let session = service.session
    let movie = MovieFileOutput(encoderSettings: settings)
    movie.maxRecordedDuration = maxDuration
    func bytes(_ text: String?, _ name: String) throws -> UInt64? {
        guard let text else { return nil }
        let units: [Character: UInt64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
        let unit = text.last.flatMap { units[$0] } ?? 1
        guard let value = UInt64(unit == 1 ? text : String(text.dropLast())) else {
            throw Arguments.UsageError(description: "\(name) \(text) is not a size such as 500M")
        }
        return value * unit
    }
    movie.maxRecordedFileSize = try bytes(maxSizeText, "--max-size")
    movie.minFreeDiskSpaceLimit = try bytes(minFreeText, "--min-free")
    if noFragments {
        movie.movieFragmentInterval = nil
    } else if let fragmentText {
        guard let seconds = Double(fragmentText), seconds > 0, seconds <= 86_400 else {
            throw Arguments.UsageError(description: "--fragment-interval \(fragmentText) is not a positive number of seconds (up to 86400)")
        }
        movie.movieFragmentInterval = .nanoseconds(Int64(seconds * 1e9))
    }
    if syncFragments { movie.durability = .syncEachFragment }
    try await session.configure { config in
        try config.addInput(video)
        if let audio { try config.addInput(audio) }
    }
    try await service.addOutput(movie)  // the service turns it to its angle (0 until gravity says otherwise)
    if gravity == nil {
        try movie.setVideoRotationAngle(Double(orientation.rotationAngle))
    }
    movie.setVideoMirrored(orientation.isMirrored)
    var observer: RotationObserver?
    if let gravity {
        // The angle at the start comes from gravity and the camera's mounting; later turns are
        // reported in the result, as on Apple platforms.
        let rotation = RotationObserver(gravitySource: gravity)
        await service.observeRotation(of: rotation)
        try rotation.setCamera(video, mounting: mounting)
        let expected = rotation.coordinator?.videoRotationAngleForHorizonLevelCapture ?? 0
        for _ in 0..<200 where movie.videoRotationAngle != expected { try? await Task.sleep(for: .milliseconds(5)) }
        observer = rotation
        if !quiet { standardError("movrec: gravity says \(Int(expected))° (\(rotation.coordinator?.mounting.description ?? ""))") }
    }
    try await session.startRunning()
    do {
        try await movie.startRecording(to: output, overwrite: overwrite)
    } catch {
        await session.stopRunning()
        throw error
    }

    // Woken at once when the recording finishes (a file source's end, a limit), and five times
    // a second for the status line and to notice Ctrl-C.
    let (wakes, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let watcher = Task { [events = movie.events] in
        for await event in events {
            switch event {
            case .didStartRecording(let path, _): standardError("movrec: recording to \(path)")
            case .didFinishRecording: waker.yield()
            default: break
            }
        }
    }
    let ticker = Task {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(200))
            waker.yield()
        }
    }
    defer {
        watcher.cancel()
        ticker.cancel()
    }
    var wake = wakes.makeAsyncIterator()
    let interactive = isatty(2) == 1 && !quiet
    var result: RecordingResult?
    let started = MonotonicClock.now()
    while result == nil {
        let signal = receivedSignal.load(ordering: .relaxed)
        if signal != 0 {
            if interactive { standardError("") }
            standardError("movrec: \(signal == SIGINT ? "interrupted" : "terminated"); finalizing \(output)")
            result = await movie.stopRecording()
            break
        }
        if !movie.isRecording {
            result = await movie.stopRecording()
            break
        }
        if interactive {
            let elapsed = Double(MonotonicClock.now() - started) / 1e9
            let media = movie.recordedDuration
            let mediaSeconds = Double(media.components.seconds) + Double(media.components.attoseconds) / 1e18
            let line = "  \(format(mediaSeconds, 1)) s recorded, \(format(elapsed, 1)) s elapsed, "
                + "\(movie.droppedFrameCount) dropped, \(format(Double(movie.recordedFileSize) / 1_000_000, 1)) MB   "
            _ = "\r\(line)".withCString { write(2, $0, strlen($0)) }
        }
        _ = await wake.next()
    }
    if interactive { standardError("") }
    await session.stopRunning()
    await service.stopObservingRotation()
    withExtendedLifetime(observer) {}
    guard let result else { return 1 }
    print(result)
    switch result.error?.code {
    case nil, .maximumDurationReached?, .maximumFileSizeReached?, .minimumFreeDiskSpaceReached?, .sourceEnded?:
        return result.isPlayable ? 0 : 1
    default:
        standardError("movrec: \(result.error!)" + (result.isPlayable ? " (the movie was finalized up to that point)" : ""))
        return 1
    }
}

func format(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int64((value * scale).rounded())
    let whole = scaled / Int64(scale), fraction = abs(scaled % Int64(scale))
    guard decimals > 0 else { return String(whole) }
    let digits = String(fraction)
    return "\(whole).\(String(repeating: "0", count: decimals - digits.count))\(digits)"
}

func makeVideoSource(_ spec: String, size: (Int, Int)?, frameRate: FrameRate?) throws -> any VideoSource {
    if spec == "testsrc" {
        let (w, h) = size ?? (1280, 720)
        return try TestPatternSource(width: w, height: h, frameRate: frameRate ?? FrameRate(frames: 30))
    }
    if spec.hasSuffix(".y4m") {
        return try Y4MFileSource(path: spec)
    }
    return try V4L2Camera(path: spec, width: size?.0, height: size?.1, frameRate: frameRate)
}

func makeAudioSource(_ spec: String) throws -> (any AudioSource)? {
    switch spec {
    case "none": return nil
    case "tone": return try ToneSource()
    default:
        if spec.hasSuffix(".wav") { return try WAVFileSource(path: spec) }
        return try ALSAMicrophone(device: spec)
    }
}

func makeGravitySource(_ spec: String) throws -> any GravitySource {
    if spec == "manual" { return ManualGravitySource(.upright(rotatedClockwise: 0)) }
    guard spec == "iio" || spec.hasPrefix("iio:") else {
        throw Arguments.UsageError(description: "--gravity \(spec) is not iio, iio:NAME, iio:/sys/bus/iio/devices/iio:deviceN or manual")
    }
    let device = spec.dropFirst(4)
    if device.hasPrefix("/") { return try IIOAccelerometer(path: String(device)) }
    return try IIOAccelerometer.find(named: device.isEmpty ? nil : String(device))
}

func parseMounting(_ text: String) throws -> CameraMounting {
    let parts = text.split(separator: ":")
    let rotation = parts.count > 1 ? Int(parts[1]) : 0
    guard let rotation, [0, 90, 180, 270].contains(rotation) else {
        throw Arguments.UsageError(description: "--mounting \(text) needs a sensor rotation of 0, 90, 180 or 270")
    }
    switch parts.first {
    case "front": return CameraMounting(position: .front, sensorRotation: rotation)
    case "back": return CameraMounting(position: .back, sensorRotation: rotation)
    case "external": return CameraMounting(position: .external, sensorRotation: rotation)
    default: throw Arguments.UsageError(description: "--mounting \(text) is not front, back or external[:ROTATION]")
    }
}

/// `movrec photo OUT.jpg [--video DEVICE|testsrc] [--size WxH] [--rotation A] [--mirror] [--quality N] [--overwrite]`
func photo(_ arguments: Arguments) async throws -> Int32 {
    var args = arguments
    let videoSpec = try args.option("--video") ?? "/dev/video0"
    let sizeText = try args.option("--size")
    let rotationText = try args.option("--rotation") ?? "0"
    let qualityText = try args.option("--quality") ?? "90"
    let mirror = args.flag("--mirror")
    let overwrite = args.flag("--overwrite")
    try args.finish(positionalCount: 1...1)
    guard let angle = Double(rotationText) else { throw Arguments.UsageError(description: "--rotation \(rotationText) is not a number") }
    guard let quality = Int(qualityText) else { throw Arguments.UsageError(description: "--quality \(qualityText) is not a whole number") }
    var size: (Int, Int)?
    if let sizeText {
        let parts = sizeText.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw Arguments.UsageError(description: "--size \(sizeText) is not WIDTHxHEIGHT")
        }
        size = (w, h)
    }
    let video = try makeVideoSource(videoSpec, size: size, frameRate: nil)
    let model = (video as? V4L2Camera)?.device.name ?? video.name
    let output = PhotoOutput(model: model)
    try output.setVideoRotationAngle(angle)
    output.setVideoMirrored(mirror)
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(video)
        try config.addOutput(output)
    }
    try await session.startRunning()
    do {
        let result = try await output.capturePhoto(to: args.positional[0], overwrite: overwrite,
                                                   settings: PhotoSettings(quality: quality, model: model))
        await session.stopRunning()
        print(result)
        return 0
    } catch {
        await session.stopRunning()
        throw error
    }
}

/// `movrec devices`
func devices(_ args: inout Arguments) throws -> Int32 {
    try args.finish(positionalCount: 0...0)
    let cameras = V4L2Camera.devices()
    print("cameras:")
    if cameras.isEmpty { print("  (none: no /dev/video* capture device, or no permission — add the user to the 'video' group)") }
    for camera in cameras { print("  " + camera.description) }
    let microphones = ALSAMicrophone.devices()
    print("microphones:")
    if microphones.isEmpty { print("  (none found by ALSA)") }
    for mic in microphones { print("  \(mic.name): \(mic.description)") }
    print("synthetic: --video testsrc, --audio tone; files: --video FILE.y4m, --audio FILE.wav")
    return 0
}

/// The first SIGINT or SIGTERM received, 0 before: stored by the signal handler (a lock-free
/// atomic store is async-signal-safe) and polled by the recording loop.
let receivedSignal = Atomic<Int32>(0)

/// Installs handlers for SIGINT and SIGTERM: the first asks for a clean stop, a second one
/// leaves at once.
func installSignalHandlers() {
    _ = receivedSignal.load(ordering: .relaxed)  // initialise the global before a handler can touch it
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
        if receivedSignal.exchange(signal, ordering: .relaxed) != 0 { _exit(128 + signal) }
    }
    sigemptyset(&action.sa_mask)
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
    // Past a file size limit (ulimit -f), fail the write with EFBIG instead of dying, so the
    // movie can still be finalized.
    signal(SIGXFSZ, SIG_IGN)
}
