import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec record`: a movie from a camera, the test pattern or a file.
enum RecordCommand {
    static let usage = """
        record OUT.mov [--video DEVICE|testsrc|FILE.y4m] [--audio DEVICE|tone|FILE.wav|none]
               [--size WxH] [--fps N[/D]] [--rotation A] [--mirror] [--duration S] [--overwrite]
               [--preset P] [--tune T] [--profile P] [--crf N | --bitrate KBITS] [--keyint N]
               [--bframes N] [--threads N] [--x264-params k=v:k=v] [--quiet]
               [--gravity iio[:NAME|:PATH] | manual] [--mounting front|back|external[:ROTATION]]
               [--max-size BYTES[K|M|G]] [--min-free BYTES[K|M|G]]
               [--fragment-interval S | --no-fragments] [--sync]
            Record H.264 and PCM into a QuickTime movie from a V4L2 camera (default /dev/video0),
            the test pattern or a Y4M file, and an ALSA device, a tone or a WAV file (default
            none). The rotation goes into the track matrix. Ctrl-C or SIGTERM stops cleanly with
            a finalized movie; --duration stops after that many seconds of media. With --gravity
            the angle comes from the accelerometer and the camera's mounting (the driver's, or
            --mounting) instead of --rotation. A movie fragment is written every second (or
            --fragment-interval), so a crash or kill loses at most about that much (`movrec repair`
            finishes such a file); --sync also flushes each fragment to the disk.
        """
}

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
