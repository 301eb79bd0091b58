import MovieRecorder
import MovieCapture
import MovieContainer

/// The RTSP options `movrec record` and `movrec live` share: where to serve, and the
/// credentials every client must give.
struct RTSPOptions {
    /// `--rtsp HOST:PORT`: serve `/main` and `/sub` there.
    var address: (host: String, port: Int)?
    /// From `--rtsp-credentials FILE` (one line `user:password`, readable by its owner only) or
    /// `MOVREC_RTSP_CREDENTIALS`; never from the command line.
    var credentials: RTSPCredentials?
    /// `--rtsp-turn-pixels`: `/sub` turned in pixels, for clients that ignore the orientation.
    var turnsPictures = false

    /// Takes the RTSP options off `args`.
    /// - Throws: `Arguments.UsageError` naming a bad value or an unusable credentials file.
    init(taking args: inout Arguments) throws {
        let addressText = try args.option("--rtsp")
        let file = try args.option("--rtsp-credentials")
        turnsPictures = args.flag("--rtsp-turn-pixels")
        if turnsPictures && addressText == nil { throw Arguments.UsageError(description: "--rtsp-turn-pixels needs --rtsp") }
        address = try addressText.map { text in
            do { return try LiveOptions.address(text) } catch {
                throw Arguments.UsageError(description: "--rtsp \(text) is not HOST:PORT, such as 127.0.0.1:8554")
            }
        }
        do {
            if let file {
                guard address != nil else { throw Arguments.UsageError(description: "--rtsp-credentials needs --rtsp") }
                credentials = try RTSPCredentials(contentsOfFile: file)
            } else if address != nil {
                credentials = try RTSPCredentials(environmentVariable: "MOVREC_RTSP_CREDENTIALS")
            }
        } catch let error as RTSPServerError {
            throw Arguments.UsageError(description: "--rtsp-credentials: \(error.message)")
        }
    }
}

/// The RTSP server of a running command, with the outputs it added for its paths.
struct RTSPService {
    let server: RTSPServer
    /// The sub stream's output when the command had no live view to share.
    let sub: LiveStreamOutput

    /// Starts serving `/main` from `main` and `/sub` from the live view's output (or one of its
    /// own, added to `service`, when there is none or `/sub` is turned in pixels); prints the two
    /// URLs, each on a line of its own.
    static func start(_ options: RTSPOptions, main: RTSPServer.MainSource?, liveView: LiveView?, orientation: VideoOrientation,
                      service: CaptureService) async throws -> RTSPService? {
        guard let address = options.address else { return nil }
        let sub: LiveStreamOutput
        if let liveView, !options.turnsPictures {
            sub = liveView.output
        } else {
            var settings = LiveStreamSettings()
            settings.turnsPictures = options.turnsPictures
            settings.encodesOnDemand = true  // it serves RTSP alone
            sub = LiveStreamOutput(settings: settings)
            try await service.addOutput(sub)
            try sub.setVideoRotationAngle(Double(orientation.rotationAngle))
            sub.setVideoMirrored(orientation.isMirrored)
        }
        let server = try RTSPServer(main: main, sub: sub, host: address.host, port: address.port, credentials: options.credentials)
        for url in [server.mainURL, server.subURL].compactMap({ $0 }) { standardError(url) }
        return RTSPService(server: server, sub: sub)
    }

    func stop() async { await server.stop() }
}
