import MoviePlatform

/// An RTSP server (RFC 2326) that makes the recorder an IP camera: NVRs, Home Assistant, VLC
/// and ffmpeg read the session's encodes while it records, on GStreamer's gst-rtsp-server.
///
/// | Path | What |
/// |---|---|
/// | `/main` | The recording's own encode, full size (or a full-size ``LiveStreamOutput``) |
/// | `/sub` | The live view's small zero-latency encode |
///
/// Both carry the live stream's AAC audio when the session has a microphone. Clients take RTP
/// over UDP unicast or interleaved in the RTSP connection (TCP); H.264 is sent as RFC 6184
/// has it, HEVC as RFC 7798, AAC as RFC 3640 (`mpeg4-generic`, AAC-hbr), with the parameter
/// sets in front of every IDR. RTCP sender reports carry the capture time of each stream's
/// RTP timestamps, so a client keeps audio with video and can measure its latency.
///
/// A path is served from the first access unit of its encode on; no new encode is made for
/// it. Pushing into the server never blocks: when a client or the server falls behind, access
/// units are dropped there, never held back in the recording.
///
/// It listens on loopback unless given another address, and then only with
/// ``RTSPCredentials``, which every client must then give (Digest). At most 64 clients, 16 from
/// one address, and new connections at 5 a second per address (in bursts of 20); a SETUP that
/// names another destination than the client's own address, or a multicast group, is refused
/// with 403; a session without a keep-alive ends after 60 seconds (``defaultSessionTimeout``).
public final class RTSPServer: Sendable {
    /// Where `/main` comes from.
    public enum MainSource: Sendable {
        /// The recording's own encode: no second full-size encode. Its B-frames and lookahead
        /// delay what a viewer sees by about a second.
        case recording(MovieFileOutput)
        /// A live stream output's encode, for a session that does not record: give it a
        /// ``LiveStreamSettings/maximumWidth`` and height as large as the camera's picture.
        case liveStream(LiveStreamOutput)
    }

    /// The port RTSP cameras conventionally use.
    public static let defaultPort = 8554
    /// Seconds a session lives without a keep-alive unless told otherwise (RTSP's default).
    public static let defaultSessionTimeout = 60

    /// `rtsp://host:port/main`, without credentials; nil when there is no main source.
    public let mainURL: String?
    /// `rtsp://host:port/sub`, without credentials; nil when there is no sub stream.
    public let subURL: String?
    /// The port the server listens on (useful after asking for port 0).
    public let port: Int
    private let server: GStreamerRTSPServer
    private let admission: RTSPAdmission
    private let feeders: [RTSPPathFeeder]

    /// Starts serving on `host` and `port`.
    /// - Parameters:
    ///   - main: Where `/main` comes from; nil for none.
    ///   - sub: The live stream `/sub` serves, whose audio `/main` carries too; nil for none.
    ///   - host: The address to listen on: `127.0.0.1` (the default) or `::1`; any other only
    ///     with `credentials`.
    ///   - port: The port; 0 for any free one.
    ///   - credentials: What every client must give, loopback included; required for an
    ///     address other than loopback.
    ///   - sessionTimeout: Seconds a session lives without a keep-alive (5 to 3600). A client
    ///     that stops reading is closed this long (and 5 seconds more) after its last delivery;
    ///     the stream leaves it after 10 seconds of backlog, whatever this says.
    /// - Throws: ``RTSPServerError`` when the address needs credentials, nothing is to be
    ///   served, the address cannot be listened on, or GStreamer's RTSP server or a plugin is
    ///   missing (it names the packages).
    public init(main: MainSource?, sub: LiveStreamOutput?, host: String = "127.0.0.1", port: Int = RTSPServer.defaultPort,
                credentials: RTSPCredentials? = nil, sessionTimeout: Int = RTSPServer.defaultSessionTimeout) throws(RTSPServerError) {
        guard (0...65535).contains(port) else {
            throw RTSPServerError(.invalidSettings, "RTSPServer: port \(port) is not a port; give 0 to 65535")
        }
        guard (5...3600).contains(sessionTimeout) else {
            throw RTSPServerError(.invalidSettings, "RTSPServer: a session timeout of \(sessionTimeout) seconds is out of range; give 5 to 3600")
        }
        guard main != nil || sub != nil else {
            throw RTSPServerError(.invalidSettings, "RTSPServer: nothing to serve; give a main source, a sub stream or both")
        }
        let loopback = host == "::1" || host.hasPrefix("127.")
        if !loopback && credentials == nil {
            throw RTSPServerError(.invalidSettings, "RTSPServer: serving on \(host) needs credentials; give RTSPCredentials, or serve on 127.0.0.1")
        }
        let admission = RTSPAdmission()
        let server: GStreamerRTSPServer
        do {
            server = try GStreamerRTSPServer(
                host: host, port: port, credentials: credentials.map { ($0.user, $0.password) },
                maximumSessions: RTSPAdmission.clients, sessionTimeout: sessionTimeout,
                hooks: .init(admit: { admission.admit($0) }, closed: { admission.closed($0) }))
        } catch {
            throw RTSPServerError(error.isLibraryMissing ? .libraryMissing : .cannotListen, "RTSPServer: \(error.message)")
        }
        self.server = server
        self.admission = admission
        self.port = server.port
        let shown = host.contains(":") ? "[\(host)]" : host
        mainURL = main.map { _ in "rtsp://\(shown):\(server.port)/main" }
        subURL = sub.map { _ in "rtsp://\(shown):\(server.port)/sub" }
        var feeders: [RTSPPathFeeder] = []
        if let sub {
            feeders.append(RTSPPathFeeder(path: "/sub", server: server, video: sub.encodedTap,
                                          audio: sub.settings.includesAudio ? sub.encodedTap : nil))
        }
        switch main {
        case .recording(let movie):
            let audio = sub.flatMap { $0.settings.includesAudio ? $0.encodedTap : nil }
            feeders.append(RTSPPathFeeder(path: "/main", server: server, video: movie.encodedTap, audio: audio))
        case .liveStream(let output):
            feeders.append(RTSPPathFeeder(path: "/main", server: server, video: output.encodedTap,
                                          audio: output.settings.includesAudio ? output.encodedTap : nil))
        case nil: break
        }
        self.feeders = feeders
    }

    /// Clients connected now.
    public var connectedClientCount: Int { admission.connectedCount }
    /// Connections turned away for passing a limit.
    public var refusedConnectionCount: Int { admission.refusedCount }
    /// SETUP requests refused for naming another destination or a multicast group.
    public var refusedDestinationCount: Int { server.refusedDestinations }

    /// Stops serving: every client is closed and the port released. Waits, on a thread of its
    /// own, for the server's threads to end.
    public func stop() async {
        let (feeders, server) = (self.feeders, self.server)
        _ = try? await runOnDedicatedThread(name: "movrec-rtsp-stop") {
            for feeder in feeders { feeder.stop() }
            server.stop()
        }
    }

    deinit {
        for feeder in feeders { feeder.stop() }
        server.stop()
    }
}
