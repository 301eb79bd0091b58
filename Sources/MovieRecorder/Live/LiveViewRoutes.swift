import MovieContainer
import MoviePlatform

/// What the ``LiveViewServer`` answers to each request: the checks every request passes, then
/// the page, the stream, the status and the HLS resources. Runs on connection threads.
final class LiveViewRoutes: Sendable {
    let output: LiveStreamOutput
    private let accessToken: String?
    /// The `Host` values a request may name when there is no token: the loopback names with the
    /// port served (and bare on port 80, where a browser leaves the port out), so that another
    /// site cannot reach the camera by DNS rebinding.
    private let loopbackHosts: Set<String>
    /// The server's readers, stopped together when it stops.
    let readers = LiveStreamHub.ReaderGroup()
    private let rates = LockedValue(RequestRates())
    /// How long a stream response waits for the next chunk before ending (the page reconnects).
    static let streamIdleNanoseconds: UInt64 = 10_000_000_000
    /// How long a request for the stream waits for one to begin before its 503.
    static let streamStartNanoseconds: UInt64 = 5_000_000_000
    /// A stream's connection is closed when its reader has taken nothing for this long: chunks
    /// come 30 times a second, so a reader that takes none for 3 seconds has stopped.
    static let streamIdleSeconds: UInt32 = 3
    /// The kernel's send buffer of a stream's connection: a fraction of a second of the stream,
    /// so a reader that stops reading is noticed within seconds.
    static let streamSendBuffer = 64 * 1024

    init(output: LiveStreamOutput, accessToken: String?, port: Int) {
        self.output = output
        self.accessToken = accessToken
        let names = ["127.0.0.1", "localhost", "[::1]"]
        loopbackHosts = Set(names.map { "\($0):\(port)" } + (port == 80 ? names : []))
    }

    /// Headers every answer carries: browsers take the type given (a 404's text is never run as
    /// a script), send no `Referer` (the page's address may hold its `?token=`), and show no page
    /// of the server in another site's frame. No `script-src`: the preview page's script is inline.
    static let securityHeaders: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("Content-Security-Policy", "frame-ancestors 'none'"),
    ]

    /// Ends open streams and blocked requests.
    func close() { output.hub.cancel(readers) }

    /// The query a URI the server writes carries: the access token, when there is one. (The
    /// token was checked to hold only URI-safe characters; a request's own `token` is never
    /// echoed.)
    var tokenQuery: String { accessToken.map { "?token=" + $0 } ?? "" }

    /// Headers that let pages of other origins read a resource: only with a token, which they
    /// must then carry. Without one, any page the machine's browser opens could read the camera.
    var crossOrigin: [(name: String, value: String)] { accessToken == nil ? [] : [("Access-Control-Allow-Origin", "*")] }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "Only GET and HEAD are served here.", headers: [("Allow", "GET, HEAD")])
        }
        if request.headers["Transfer-Encoding"] != nil || (request.headers["Content-Length"].map { $0 != "0" } ?? false) {
            return .text(400, "A \(request.method) request carries no body here.")
        }
        guard rates.withLock({ $0.admit(request.clientAddress, at: SystemClock.monotonicNanoseconds()) }) else {
            return .text(429, "Too many requests from \(request.clientAddress); slow down.", headers: [("Retry-After", "1")])
        }
        if accessToken == nil, let host = request.headers["Host"], !loopbackHosts.contains(host.lowercased()) {
            return .text(421, "This live view answers only to 127.0.0.1, localhost or [::1] with its port.")
        }
        guard isAuthorized(request) else {
            return .text(401, "This live view needs its access token: add ?token=… to the address.",
                         headers: [("WWW-Authenticate", "Bearer")])
        }
        switch request.path {
        case "/", "/index.html":
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")],
                                body: .bytes(Array(PreviewPage.html.utf8)))
        case "/stream.mp4": return stream(picturesOnly: false)
        case "/video.mp4": return stream(picturesOnly: true)
        case "/status.json": return status()
        case "/hls/live.m3u8": return playlist(request)
        case "/hls/", "/hls/index.html":
            let page = "<!doctype html><meta charset=utf-8><title>Live view (HLS)</title><body style=margin:0;background:#000>"
                + "<video id=video controls autoplay muted playsinline style=width:100vw;height:100vh src=\"live.m3u8\(tokenQuery)\"></video>\n"
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: .bytes(Array(page.utf8)))
        default:
            if request.path.hasPrefix("/hls/") { return hlsResource(String(request.path.dropFirst(5))) }
            return .text(404, "\(request.path.prefix(200)) is not here; the page is at /.")
        }
    }

    /// Compares the token without stopping at the first difference.
    private func isAuthorized(_ request: HTTPRequest) -> Bool {
        guard let accessToken else { return true }
        guard let given = request.query["token"] ?? request.headers["Authorization"].flatMap(Self.bearerToken) else { return false }
        let a = Array(given.utf8), b = Array(accessToken.utf8)
        var difference = a.count ^ b.count
        for i in 0..<b.count { difference |= Int((i < a.count ? a[i] : 0) ^ b[i]) }
        return difference == 0
    }

    /// The token of an `Authorization: Bearer …` header: the scheme in any case, then one or
    /// more spaces (RFC 7235 section 2.1); nil for another scheme.
    static func bearerToken(_ authorization: String) -> String? {
        let scheme = authorization.prefix { $0 != " " }
        let token = authorization.dropFirst(scheme.count).drop { $0 == " " }
        return scheme.lowercased() == "bearer" && !token.isEmpty ? String(token) : nil
    }

    private func stream(picturesOnly: Bool) -> HTTPResponse {
        let hub = output.hub
        let position = LockedValue(LiveStreamHub.StreamPosition(picturesOnly: picturesOnly))
        // A reader that comes as the session starts waits a little for the stream to begin.
        let deadline = SystemClock.monotonicNanoseconds() + Self.streamStartNanoseconds
        guard let start = hub.waitForStream(until: deadline, group: readers)?.start else {
            return .text(503, "Nothing is streaming now; try again in a moment.", headers: [("Retry-After", "1")])
        }
        let readers = self.readers
        return HTTPResponse(status: 200, headers: [("Content-Type", "video/mp4"), ("Cache-Control", "no-store"),
                                                   ("X-Stream-Codecs", picturesOnly ? start.pictureCodecs : start.codecs),
                                                   ("X-Stream-Audio", start.codecs.contains("mp4a") ? "yes" : "no")],
                            body: .stream(sendBuffer: Self.streamSendBuffer, idleSeconds: Self.streamIdleSeconds) {
            // One connection thread calls this at a time; the lock only satisfies the compiler.
            var p = position.withLock { $0 }
            defer { position.withLock { $0 = p } }
            let deadline = SystemClock.monotonicNanoseconds() + Self.streamIdleNanoseconds
            switch hub.read(&p, until: deadline, group: readers) {
            case .bytes(let bytes): return .bytes(bytes)
            case .end, .timeout: return .end
            }
        })
    }

    private func status() -> HTTPResponse {
        let stream = output.hub.currentStream
        let json = "{\"streaming\":\(stream != nil),\"width\":\(stream?.width ?? 0),\"height\":\(stream?.height ?? 0),"
            + "\"codecs\":\"\(stream?.codecs ?? "")\",\"angle\":\(Int(output.videoRotationAngle)),\"mirrored\":\(output.isVideoMirrored),"
            + "\"streamedFrames\":\(output.streamedFrameCount),\"droppedFrames\":\(output.droppedFrameCount)}\n"
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                            body: .bytes(Array(json.utf8)))
    }
}

/// Requests per client address: a token bucket each, by default 100 a second in bursts of 200,
/// for at most 1024 addresses (the least recently seen forgotten first).
struct RequestRates {
    private var buckets: [String: (tokens: Double, at: UInt64)] = [:]
    let perSecond: Double
    let burst: Double

    init(perSecond: Double = 100, burst: Double = 200) {
        self.perSecond = perSecond
        self.burst = burst
    }

    mutating func admit(_ address: String, at now: UInt64) -> Bool {
        var bucket = buckets[address] ?? (burst, now)
        bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.at) / 1e9 * perSecond)
        bucket.at = now
        let admitted = bucket.tokens >= 1
        if admitted { bucket.tokens -= 1 }
        buckets[address] = bucket
        if buckets.count > 1024, let oldest = buckets.min(by: { $0.value.at < $1.value.at })?.key { buckets[oldest] = nil }
        return admitted
    }
}
