import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder
extension LiveViewTestGroup {
    /// What the live view server's routes answer at their edges (issue 44): the `Host` a browser
    /// sends on port 80, the bearer scheme in any case, encoded control characters in a path or
    /// query, parts far ahead of the stream, the playlist once the stream ends, and the security
    /// headers on every answer.
    @Suite struct LiveRoutesTests {
        static let token = "routes-test-token-0123"

        /// Asks `routes` for `/status.json` with `headers`, as the server would.
        static func status(_ routes: LiveViewRoutes, _ headers: [String: String]) -> Int {
            routes.answer(HTTPRequest(method: "GET", path: "/status.json", headers: headers, clientAddress: "127.0.0.1")).status
        }

        /// curl's status code and seconds for `url`, sending `arguments` first.
        static func curl(_ url: String, _ arguments: [String] = []) throws -> (status: String, seconds: Double) {
            let result = try run("/usr/bin/curl", ["-s", "-g", "--path-as-is", "-m", "10", "-o", "/dev/null", "-w", "%{http_code} %{time_total}"]
                                 + arguments + [url])
            let fields = result.output.split(separator: " ")
            return (fields.first.map(String.init) ?? "", fields.count > 1 ? Double(fields[1]) ?? 99 : 99)
        }

        /// A browser on port 80 sends `Host: 127.0.0.1` without the port: the loopback names are
        /// accepted bare there, with `:80`, in any case; foreign names and other ports are not.
        @Test func theLoopbackNamesNeedNoPortOnPort80() {
            let output = LiveStreamOutput()
            let on80 = LiveViewRoutes(output: output, accessToken: nil, port: 80)
            for host in ["127.0.0.1", "localhost", "[::1]", "LocalHost", "127.0.0.1:80", "localhost:80", "[::1]:80"] {
                #expect(Self.status(on80, ["Host": host]) == 200, "Host: \(host) on port 80")
            }
            for host in ["evil.example", "evil.example:80", "127.0.0.1:8080", "127.0.0.2", "localhost.evil.example", "[::1]:8080", ""] {
                #expect(Self.status(on80, ["Host": host]) == 421, "Host: \(host) on port 80")
            }
            let on8080 = LiveViewRoutes(output: output, accessToken: nil, port: 8080)
            #expect(Self.status(on8080, ["Host": "127.0.0.1:8080"]) == 200)
            #expect(Self.status(on8080, ["Host": "127.0.0.1"]) == 421, "a bare name means port 80, which is not this server's")
            #expect(Self.status(on8080, ["Host": "localhost"]) == 421)
        }

        /// RFC 7235: the auth-scheme is case-insensitive, so `bearer`, `BEARER` and `Bearer` all
        /// carry the token; another scheme, a wrong token or no space after the scheme do not.
        @Test func theBearerSchemeIsAcceptedInAnyCase() {
            let routes = LiveViewRoutes(output: LiveStreamOutput(), accessToken: Self.token, port: 8080)
            for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
                #expect(Self.status(routes, ["Authorization": "\(scheme) \(Self.token)"]) == 200, "\(scheme)")
            }
            #expect(Self.status(routes, ["Authorization": "bearer  \(Self.token)"]) == 200, "RFC 7235 allows more than one space")
            for refused in ["Basic \(Self.token)", "bearer wrong-token-0123456789", "bearer\(Self.token)", "bearer ", "bearer",
                            "xbearer \(Self.token)", "Bearer \(Self.token)x"] {
                #expect(Self.status(routes, ["Authorization": refused]) == 401, "Authorization: \(refused)")
            }
            #expect(Self.status(routes, [:]) == 401)
        }

        /// A part whose segment is more than two ahead of the newest is refused at once, as the
        /// playlist refuses such an `_HLS_msn`; it used to wait three target durations for it.
        @Test func aPartFarAheadIsRefusedAtOnce() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            #expect(try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1").status == 200)
            // Named from the newest segment as each request goes (a segment lasts a second), with
            // room for another to begin meanwhile.
            let names: [@Sendable (Int) -> String] = [{ _ in "part-999999999.0.m4s" }, { "part-\($0 + 5).0.m4s" },
                                                      { "part-\($0 + 50).2.m4s" }, { _ in "seg-999999999.m4s" }]
            for named in names {
                let name = named(try #require(live.live.hub.lastSequenceNumber))
                let answer = try Self.curl(live.base + "/hls/" + name)
                #expect(answer.status == "404" && answer.seconds < 0.5, "\(name): \(answer)")
            }
        }

        /// libmicrohttpd decoded `%00` into the path and query, cutting the C string there:
        /// `/status.json%00x` served the status and `?token=TOKEN%00junk` passed. An escape that
        /// decodes to a control character is now left as it is, so neither matches; other escapes
        /// are still decoded.
        @Test func anEncodedControlCharacterIsNeverDecoded() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            let guarded = try LiveViewServer(output: live.live, port: 0, accessToken: Self.token)
            defer { Task { await guarded.stop() } }
            #expect(try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1").status == 200)
            for path in ["/status.json%00x", "/status.json%00", "/status.json%0a", "/status.json%7F", "/%00/status.json", "/hls/live.m3u8%00.txt"] {
                #expect(try Self.curl(live.base + path).status == "404", "\(path)")
            }
            #expect(try Self.curl(live.base + "/hls/live.m3u8?_HLS_msn=1%00").status == "400")
            #expect(try Self.curl(live.base + "/status%2Ejson").status == "200", "an ordinary escape is decoded")
            #expect(try Self.curl(live.base + "/hls/live.m3u8?_HLS_msn=%31").status == "200")
            let other = "http://127.0.0.1:\(guarded.port)"
            #expect(try Self.curl(other + "/status.json?token=\(Self.token)%00junk").status == "401")
            #expect(try Self.curl(other + "/status.json?token=\(Self.token)%00").status == "401")
            #expect(try Self.curl(other + "/status.json?token=\(Self.token)").status == "200")
        }

        /// When the session stops, the playlist ends: `EXT-X-ENDLIST`, no preload hint, and a
        /// blocking reload or a part request for what will not come answered at once. When it
        /// runs again, the playlist is live again.
        @Test func thePlaylistEndsWhenTheStreamEnds() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            let running = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1")
            #expect(running.status == 200 && !String(decoding: running.body, as: UTF8.self).contains("#EXT-X-ENDLIST"))
            await live.session.stopRunning()
            let ended = String(decoding: try httpGet(live.base + "/hls/live.m3u8").body, as: UTF8.self)
            #expect(ended.hasSuffix("#EXT-X-ENDLIST\n"), "\(ended.suffix(200))")
            #expect(!ended.contains("#EXT-X-PRELOAD-HINT"))
            let newest = try #require(live.live.hub.lastSequenceNumber)
            let blocking = try Self.curl(live.base + "/hls/live.m3u8?_HLS_msn=\(newest + 1)")
            #expect(blocking.status == "200" && blocking.seconds < 0.5, "a blocking reload after the end: \(blocking)")
            let part = try Self.curl(live.base + "/hls/part-\(newest + 1).0.m4s")
            #expect(part.status == "404" && part.seconds < 0.5, "a part after the end: \(part)")
            try await live.session.startRunning()
            let again = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=\(newest + 2)")
            let text = String(decoding: again.body, as: UTF8.self)
            #expect(again.status == 200 && !text.contains("#EXT-X-ENDLIST") && text.contains("#EXT-X-DISCONTINUITY\n"), "\(text.suffix(300))")
        }

        /// Every answer, the page, the stream, HLS and the errors alike, says not to sniff its
        /// type, not to send a referrer (which would carry `?token=`) and not to be framed.
        @Test func everyAnswerCarriesTheSecurityHeaders() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            let guarded = try LiveViewServer(output: live.live, port: 0, accessToken: Self.token)
            defer { Task { await guarded.stop() } }
            #expect(try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1").status == 200)
            let requests: [(String, [String])] = [
                ("/", []), ("/status.json", []), ("/hls/", []), ("/hls/live.m3u8", []), ("/hls/init-1.mp4", []),
                ("/hls/seg-0.m4s", []), ("/nothing", []), ("/hls/live.m3u8?_HLS_msn=abc", []), ("/", ["-X", "POST"]),
                ("/", ["-H", "Host: evil.example"]), ("/video.mp4", ["-m", "1"]),
                ("http://127.0.0.1:\(guarded.port)/status.json", []),
                ("http://127.0.0.1:\(guarded.port)/hls/live.m3u8?token=\(Self.token)", []),
            ]
            for (path, arguments) in requests {
                let url = path.hasPrefix("http") ? path : live.base + path
                let head = try run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null"] + arguments + [url]).output.lowercased()
                let status = head.split(separator: " ").dropFirst().first ?? ""
                #expect(head.contains("\r\nx-content-type-options: nosniff\r\n"), "\(path) (\(status))")
                #expect(head.contains("\r\nreferrer-policy: no-referrer\r\n"), "\(path) (\(status))")
                #expect(head.contains("\r\ncontent-security-policy: frame-ancestors 'none'\r\n"), "\(path) (\(status))")
            }
        }
    }
}
