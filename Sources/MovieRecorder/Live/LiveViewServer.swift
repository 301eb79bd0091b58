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
/// It listens on loopback unless given another address, and then only with an access token,
/// which every request must carry (`?token=` or `Authorization: Bearer`). Only GET and HEAD are
/// answered; connections (64, 16 per address), request headers (16 KiB) and requests per
/// address (100 a second, in bursts of 200) are bounded, and an idle or stalled connection is
/// closed after 10 seconds. A reader that falls behind skips to the newest IDR. Nothing a client
/// does reaches the recording.
///
/// Every answer carries `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` and
/// `Content-Security-Policy: frame-ancestors 'none'`. When the session stops, the playlist ends
/// with `EXT-X-ENDLIST`.
public final class LiveViewServer: Sendable {
    /// The page's address, with the access token when there is one.
    public let url: String
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
    ///   - accessToken: A secret every request must carry; required for an address other
    ///     than loopback.
    /// - Throws: ``LiveViewError`` when the address needs a token, cannot be listened on, or
    ///   libmicrohttpd is missing.
    public init(output: LiveStreamOutput, host: String = "127.0.0.1", port: Int = 8080, accessToken: String? = nil) throws(LiveViewError) {
        guard (0...65535).contains(port) else {
            throw LiveViewError(.invalidSettings, "LiveViewServer: port \(port) is not a port; give 0 to 65535")
        }
        let loopback = host == "::1" || host.hasPrefix("127.")
        if !loopback && (accessToken ?? "").isEmpty {
            throw LiveViewError(.invalidSettings, "LiveViewServer: serving on \(host) needs an access token; give one, or serve on 127.0.0.1")
        }
        if let accessToken, !accessToken.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-._~".unicodeScalars.contains($0)) }) {
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
        url = "http://\(shown):\(server.port)/" + (accessToken.map { "?token=\($0)" } ?? "")
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
