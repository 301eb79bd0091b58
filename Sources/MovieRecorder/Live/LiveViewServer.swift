import MovieContainer
import MoviePlatform
import MovieCapture

/// An HTTP server for a ``LiveStreamOutput``: a preview page, the raw fMP4 stream it plays, and
/// Low-Latency HLS for every other player, on GNU libmicrohttpd.
///
/// | Path | What |
/// |---|---|
/// | `/` | The preview page: plays `/video.mp4` (or `/stream.mp4` with sound) through Media Source Extensions, turned level |
/// | `/stream.mp4` | The stream as one long chunked response, from its newest IDR |
/// | `/video.mp4` | The same without its audio: browsers hold less in hand, so it plays closer to live |
/// | `/status.json` | Size, codecs, orientation and counters |
/// | `/hls/` | A page that plays the LL-HLS playlist with the browser's own HLS (Safari, Chromium) |
/// | `/hls/live.m3u8` | LL-HLS media playlist; `_HLS_msn` / `_HLS_part` block until that part |
/// | `/hls/init-N.mp4`, `seg-N.m4s`, `part-N.P.m4s` | Its initialization segments, segments and parts |
///
/// It listens on loopback unless given another address, and then only with an access token of
/// at least ``minimumAccessTokenLength`` characters, which every request must carry (`?token=`
/// or `Authorization: Bearer`). Only GET and HEAD are answered; connections (64, 16 per
/// address), request headers (16 KiB) and requests per address (100 a second, in bursts of 200)
/// are bounded; a request head must arrive whole within 5 seconds however its bytes trickle, a
/// stream's reader must keep taking it, and an idle connection is closed after 10 seconds. The
/// connections' threads run below the recording's. A reader that falls behind skips to the
/// newest IDR. Nothing a client does reaches the recording.
///
/// Every answer carries `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` and
/// `Content-Security-Policy: frame-ancestors 'none'`. When the session stops, the playlist ends
/// with `EXT-X-ENDLIST`.
public final class LiveViewServer: Sendable {
    /// The fewest characters an access token may have: 16 letters and digits are about 95 bits,
    /// more than a page in the victim's own browser can guess.
    public static let minimumAccessTokenLength = 16

    /// The page's address, with the access token when there is one. It holds the secret:
    /// print ``urlWithoutToken`` where others may read it (a log, a terminal shared).
    public let url: String
    /// The page's address without the access token.
    public let urlWithoutToken: String
    /// The port the server listens on (useful after asking for port 0).
    public let port: Int
    private let server: HTTPServer
    private let routes: LiveViewRoutes

    /// Starts serving `output` on `host` and `port`.
    /// - Parameters:
    ///   - output: The stream to serve.
    ///   - host: The address to listen on: `127.0.0.1` (the default) or `::1`; any other only
    ///     with `accessToken`.
    ///   - port: The port; 0 for any free one.
    ///   - accessToken: A secret every request must carry, at least
    ///     ``minimumAccessTokenLength`` characters (letters, digits, `-._~`); required for an
    ///     address other than loopback. ``makeAccessToken()`` makes one.
    /// - Throws: ``LiveViewError`` when the address needs a token, the token is shorter than
    ///   ``minimumAccessTokenLength`` or holds other characters, the address cannot be listened
    ///   on, or libmicrohttpd is missing.
    public init(output: LiveStreamOutput, host: String = "127.0.0.1", port: Int = 8080, accessToken: String? = nil) throws(LiveViewError) {
        guard (0...65535).contains(port) else {
            throw LiveViewError(.invalidSettings, "LiveViewServer: port \(port) is not a port; give 0 to 65535")
        }
        let loopback = host == "::1" || host.hasPrefix("127.")
        if !loopback && accessToken == nil {
            throw LiveViewError(.invalidSettings, "LiveViewServer: serving on \(host) needs an access token; give one, or serve on 127.0.0.1")
        }
        if let accessToken, accessToken.count < Self.minimumAccessTokenLength {
            throw LiveViewError(.invalidSettings, "LiveViewServer: an access token of \(accessToken.count) characters is too easy to guess; "
                                + "give one of at least \(Self.minimumAccessTokenLength), such as LiveViewServer.makeAccessToken()")
        }
        if let accessToken, !accessToken.isUnreservedInURLs {
            throw LiveViewError(.invalidSettings, "LiveViewServer: the access token may hold only letters, digits, '-', '.', '_' and '~'")
        }
        var limits = HTTPServer.Limits()
        limits.queryKeys = ["token", "_HLS_msn", "_HLS_part"]
        limits.headerKeys = ["Authorization", "Content-Length", "Transfer-Encoding", "Host"]
        // The routes need the port bound, which port 0 leaves to the server.
        let routesBox = LockedValue<LiveViewRoutes?>(nil)
        do {
            server = try HTTPServer(host: host, port: UInt16(port), limits: limits) { request in
                var response = routesBox.withLock({ $0 })?.answer(request) ?? .text(503, "The live view is starting.")
                response.headers += LiveViewRoutes.securityHeaders
                return response
            }
        } catch {
            throw LiveViewError(error.isLibraryMissing ? .libraryMissing : .cannotListen, "LiveViewServer: \(error.message)")
        }
        let routes = LiveViewRoutes(output: output, accessToken: accessToken, port: Int(server.port))
        routesBox.withLock { $0 = routes }
        self.routes = routes
        self.port = Int(server.port)
        let shown = host.contains(":") ? "[\(host)]" : host
        urlWithoutToken = "http://\(shown):\(server.port)/"
        url = urlWithoutToken + (accessToken.map { "?token=\($0)" } ?? "")
    }

    /// A new access token: 32 letters and digits (about 190 bits) from the system's
    /// cryptographically secure generator (`getrandom`).
    public static func makeAccessToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// Stops serving: open streams end, blocked requests are answered, the port is released.
    /// Waits, on a thread of its own, for the connections' threads to finish.
    public func stop() async {
        let (routes, server) = (self.routes, self.server)
        _ = try? await runOnDedicatedThread(name: "movrec-live-stop") {
            routes.close()
            server.stop()
        }
    }

    deinit {
        routes.close()
        server.stop()
    }
}
