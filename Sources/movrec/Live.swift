import Dispatch
import MovieCapture
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec live`: the live view without a recording.
enum LiveCommand {
    static let usage = """
        live [--video DEVICE|testsrc|FILE] [--audio DEVICE|tone|FILE.wav|none] [--size WxH] [--fps N[/D]]
             [--rotation A] [--mirror] [--gravity iio[:NAME|:PATH] | manual] [--mounting …] [--duration S]
             [--live HOST:PORT] [--live-size WxH] [--live-token-file PATH] [--print-token] [--hls-directory DIR [--hls-window N] [--hls-mode MODE]]
             [--rtsp HOST:PORT [--rtsp-credentials FILE] [--rtsp-turn-pixels]]
            Serve what the camera sees without recording it: a page that plays it in a browser
            (turned level, its latency measured), the raw fMP4 stream, and Low-Latency HLS for
            Safari, hls.js, ffmpeg and other players. --live gives the address (default
            127.0.0.1:8080; any other address needs an access token of 16 or more characters,
            which every request must then carry: --live-token-file PATH reads it from PATH's first
            line (a file only its owner may read; made with a random token when it does not exist),
            or MOVREC_LIVE_TOKEN gives it; the printed address leaves it out unless --print-token).
            The stream is scaled to fit --live-size (default 640x360) and encoded with
            x264's zerolatency tune. --hls-directory also writes HLS segments and a playlist of
            --hls-window segments (default 6; 0 for an EVENT playlist) into DIR, for a static web
            server, its files --hls-mode (octal, default 0600: 0644 for a server running as another
            user). --rtsp HOST:PORT also serves RTSP: rtsp://HOST:PORT/main (a full-size
            zerolatency encode; while recording, the recording's own) and .../sub (the live view's
            encode), for Frigate, Home Assistant, ffmpeg and GStreamer; both URLs are printed.
            An address other than loopback needs credentials every client must give (Digest):
            --rtsp-credentials FILE (one line user:password, a file only its owner may read) or
            MOVREC_RTSP_CREDENTIALS. --rtsp-turn-pixels turns /sub in pixels for clients that ignore
            the orientation the stream carries (Home Assistant, GStreamer). The page's address is printed; Ctrl-C or SIGTERM stops, or --duration S.
        """
}

/// `movrec live [--video …] [--live HOST:PORT] …`
func live(_ arguments: Arguments) async throws -> Int32 {
    let options = try RecordOptions(parsing: arguments, isLiveCommand: true)
    let sources = try RecordSources(options)
    let service = CaptureService()
    try await service.session.configure { [video = sources.video, audio = sources.audio] config in
        try config.addInput(video)
        if let audio { try config.addInput(audio) }
    }
    var observer: RotationObserver?
    if let gravity = sources.gravity {
        let rotation = RotationObserver(gravitySource: gravity)
        await service.observeRotation(of: rotation)
        try rotation.setCamera(sources.video, mounting: sources.mounting)
        observer = rotation
    }
    guard let view = try await LiveView.start(options.live, service: service) else { return 2 }
    if sources.gravity == nil { try view.output.setVideoRotationAngle(Double(options.orientation.rotationAngle)) }
    view.output.setVideoMirrored(options.orientation.isMirrored)
    let rtsp = try await RTSPService.start(options.rtsp, main: try await fullSizeStream(options, service: service), liveView: view,
                                           orientation: options.orientation, service: service)
    try await service.session.startRunning()
    await waitForSignal(orAfter: options.maxDuration)
    await service.session.stopRunning()
    await view.stop()
    await rtsp?.stop()
    await service.stopObservingRotation()
    withExtendedLifetime(observer) {}
    if let error = view.output.lastError {
        standardError("movrec: \(error)")
        return 1
    }
    if view.directory?.error != nil { return 1 }  // printed when it happened
    standardError("movrec: streamed \(view.output.streamedFrameCount) frames, \(view.output.droppedFrameCount) left out")
    return 0
}

/// With `--rtsp`, a full-size zerolatency stream for `/main`, added to `service`: the command
/// records nothing, so there is no recording's encode to share.
private func fullSizeStream(_ options: RecordOptions, service: CaptureService) async throws -> RTSPServer.MainSource? {
    guard options.rtsp.address != nil else { return nil }
    var settings = LiveStreamSettings()
    settings.maximumWidth = 7680
    settings.maximumHeight = 4320
    settings.encodesOnDemand = true  // it serves RTSP alone
    let output = LiveStreamOutput(settings: settings)
    try await service.addOutput(output)
    try output.setVideoRotationAngle(Double(options.orientation.rotationAngle))
    output.setVideoMirrored(options.orientation.isMirrored)
    return .liveStream(output)
}

/// Returns at SIGINT or SIGTERM, or after `duration`.
private func waitForSignal(orAfter duration: Duration?) async {
    let (wakes, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let descriptor = signalPipe.read
    let source = descriptor < 0 ? nil : DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
    source?.setEventHandler {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = read(descriptor, &bytes, bytes.count)
        waker.yield()
    }
    source?.resume()
    let timer = duration.map { limit in Task { try? await Task.sleep(for: limit); waker.yield() } }
    var iterator = wakes.makeAsyncIterator()
    _ = await iterator.next()
    source?.cancel()
    timer?.cancel()
}
