import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif
extension LiveViewTestGroup {
    /// The live view server under load and attack: readers that stall or pile up never cost the
    /// recording a frame, every bad request gets its 4xx (or is closed), and what is not loopback
    /// needs a token.
    @Suite struct LiveServerTests {
        /// Eight readers of the stream and one that stops reading (SIGSTOP) while a 720p movie
        /// records: the movie drops nothing, the eight read all along, and the stalled one is cut
        /// loose (its connection closed while the stream goes on).
        @Test func aStalledReaderIsCutLooseAndEightReadersCostTheRecordingNothing() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let movie = MovieFileOutput()
            let live = try await LiveSession.start(width: 1280, height: 720, extra: [movie])
            try await movie.startRecording(to: directory.file("clip.mov"))
            let curl = try toolPath("curl")
            func reader(_ name: String, seconds: Int) throws -> Process {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: curl)
                process.arguments = ["-s", "-N", "-m", String(seconds), "-o", directory.file(name), live.base + "/stream.mp4"]
                try process.run()
                return process
            }
            let readers = try (0..<8).map { try reader("reader-\($0).mp4", seconds: 14) }
            let stalled = try reader("stalled.mp4", seconds: 40)
            // Stopped once it has taken some of the stream: a reader stopped before it connects is
            // never the server's to cut loose.
            let stalledFile = directory.file("stalled.mp4")
            let connected = await eventually {
                ((try? FileManager.default.attributesOfItem(atPath: stalledFile)[.size] as? Int) ?? 0) > 0
            }
            #expect(connected, "the stalled reader never got the stream")
            kill(stalled.processIdentifier, SIGSTOP)
            // The server gives up on a connection that takes nothing for 10 seconds.
            try await Task.sleep(for: .seconds(12))
            kill(stalled.processIdentifier, SIGCONT)
            let resumed = Date()
            for process in readers { process.waitUntilExit() }
            stalled.waitUntilExit()
            let stalledFor = Date().timeIntervalSince(resumed)
            let result = await movie.stopRecording()
            await live.stop()
            let recorded = try #require(result)
            #expect(recorded.isPlayable && recorded.droppedFrameCount == 0, "\(recorded)")
            #expect(stalledFor < 5 && stalled.terminationStatus != 28, "the stalled reader ran \(stalledFor) s more and ended with \(stalled.terminationStatus)")
            for i in 0..<8 {
                let size = (try? FileManager.default.attributesOfItem(atPath: directory.file("reader-\(i).mp4"))[.size] as? Int) ?? 0
                let frames = try run("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries",
                                                 "stream=nb_read_packets", "-of", "csv=p=0", directory.file("reader-\(i).mp4")])
                #expect((Int(frames.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 300,
                        "reader \(i) got \(size) bytes, \(frames.output) pictures")
            }
        }

        /// Over 5,000 hostile requests that reach the routes: they name the server as it expects
        /// (`Host: 127.0.0.1:PORT`) and, on a second server with a token, carry it. Traversal,
        /// numbers out of range, bad `_HLS_msn`, far-ahead parts, encoded NULs and line breaks,
        /// the bearer scheme in other cases, foreign hosts, wrong methods and malformed HTTP each
        /// get the answer `hostile.py` expects: no 5xx but libmicrohttpd's 505 for `HTTP/9.9`,
        /// nothing leaks a file or a smuggled header, the far-ahead part is refused at once, and
        /// the servers and the recording go on.
        @Test func hostileRequestsAreAnsweredAndTheRecordingGoesOn() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let movie = MovieFileOutput()
            let live = try await LiveSession.start(extra: [movie])
            let token = "hostile-test-token-0123"
            let guarded = try LiveViewServer(output: live.live, port: 0, accessToken: token)
            try await movie.startRecording(to: directory.file("clip.mov"))
            // A segment in the playlist first, so that its requests are answered 200, not 503.
            #expect(try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1").status == 200)
            let open = try HostileReport(port: live.server.port, rounds: 100)
            let withToken = try HostileReport(port: guarded.port, rounds: 10, token: token)
            let status = try httpGet(live.base + "/status.json")
            let guardedStatus = try httpGet("http://127.0.0.1:\(guarded.port)/status.json?token=\(token)")
            let result = await movie.stopRecording()
            await guarded.stop()
            await live.stop()
            #expect(open.sent + withToken.sent >= 5000, "\(open.sent) + \(withToken.sent) requests")
            for report in [open, withToken] {
                #expect(report.unexpectedCount == 0, "\(report.unexpectedCount) answered otherwise than expected: \(report.unexpected)")
                #expect(report.leaks == 0 && report.injected == 0, "\(report.answers)")
                let fiveHundreds = report.answers.filter { $0.key.hasPrefix("5") }
                #expect(fiveHundreds.keys.allSatisfy { $0 == "505" } && report.only("version-9.9", "505"), "\(report.answers)")
                #expect(report.answers["timeout"] == report.names["slow"]?["timeout"], "only the unfinished headers wait: \(report.answers)")
                for name in ["traversal", "traversal-hls", "traversal-encoded", "traversal-init", "seg-huge", "part-far-ahead", "status-nul"] {
                    #expect(report.only(name, "404"), "\(name): \(report.names[name] ?? [:])")
                }
                for name in ["msn-abc", "msn-ahead", "msn-nul", "part-without-msn"] {
                    #expect(report.only(name, "400"), "\(name): \(report.names[name] ?? [:])")
                }
                #expect(report.only("bearer-lower", "200") && report.only("status", "200"))
                #expect((report.slowest["part-far-ahead"] ?? 99) < 0.5, "a part far ahead waited \(report.slowest["part-far-ahead"] ?? 99) s")
            }
            #expect(open.only("host-foreign", "421") && open.only("host-bare", "421"), "\(open.names["host-foreign"] ?? [:])")
            #expect(withToken.only("token-nul", "401") && withToken.only("token-wrong", "401") && withToken.only("token-missing", "401"))
            #expect(status.status == 200 && guardedStatus.status == 200, "the servers still answer after the attack")
            let recorded = try #require(result)
            #expect(recorded.isPlayable && recorded.droppedFrameCount == 0, "\(recorded)")
        }

        /// 64 connections from 127.0.0.2–5 whose request heads trickle a byte every 4 seconds, and
        /// come back as soon as they are closed, cannot lock out a viewer on 127.0.0.1: each is
        /// closed 5 seconds after its accept, and a viewer's whole request gets in at once.
        @Test func slowHeadersFromFourAddressesCannotLockAViewerOut() async throws {
            let live = try await LiveSession.start(audio: false)
            let script = URL(fileURLWithPath: browserScript).deletingLastPathComponent().appendingPathComponent("slowheaders.py").path
            let attack = try run("/usr/bin/env", ["python3", script, String(live.server.port), "--seconds", "12"])
            let after = try httpGet(live.base + "/status.json")
            await live.stop()
            let report = try #require(try JSONSerialization.jsonObject(with: attack.outputData) as? [String: Any], "\(attack.error)")
            let latencies = report["latencies"] as? [Double?] ?? []
            let statuses = report["statuses"] as? [Int] ?? []
            #expect((report["mostHeld"] as? Int ?? 0) >= 60, "the attack held the slots: \(report)")
            #expect((report["closedByServer"] as? Int ?? 0) >= 64, "the server closed the trickling heads: \(report)")
            #expect(latencies.count >= 10 && statuses.allSatisfy { $0 == 200 }, "\(report)")
            #expect(latencies.allSatisfy { ($0 ?? 99) <= 1.0 }, "every status.json within 1 s: \(latencies)")
            #expect(after.status == 200)
        }

        /// An access token is at least 16 characters: an empty or shorter one is refused, as it
        /// could be guessed (an empty one matched `?token=`); a made one is 32 and never repeats.
        @Test func shortAndEmptyTokensAreRefused() throws {
            let output = LiveStreamOutput()
            for token in ["", "fifteen-chars15"] {
                #expect(throws: LiveViewError.self, "\(token.count) characters") { try LiveViewServer(output: output, port: 0, accessToken: token) }
            }
            let made = LiveViewServer.makeAccessToken()
            #expect(made.count == 32 && made != LiveViewServer.makeAccessToken())
            let server = try LiveViewServer(output: output, port: 0, accessToken: made)
            #expect(server.url == server.urlWithoutToken + "?token=" + made && !server.urlWithoutToken.contains(made))
        }

        /// Only GET and HEAD; unknown paths 404; HEAD answers without a body.
        @Test func methodsAndPaths() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            #expect(try httpGet(live.base + "/").status == 200)
            #expect(try httpGet(live.base + "/nothing").status == 404)
            let post = try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", live.base + "/"])
            #expect(post.output == "405")
            let head = try run("/usr/bin/curl", ["-s", "-I", live.base + "/status.json"])
            #expect(head.output.hasPrefix("HTTP/1.1 200") && head.output.contains("application/json"), "\(head.output)")
        }

        /// With a token, every request needs it, as a query or a bearer header; an address other than
        /// loopback is refused without one.
        @Test func anAccessTokenGuardsEveryRequest() async throws {
            let live = try await LiveSession.start(audio: false, accessToken: "s3cret-token-0123456789")
            defer { Task { await live.stop() } }
            #expect(live.server.url.hasSuffix("/?token=s3cret-token-0123456789"))
            #expect(try httpGet(live.base + "/status.json").status == 401)
            #expect(try httpGet(live.base + "/status.json?token=wrong-token").status == 401)
            #expect(try httpGet(live.base + "/status.json?token=s3cret-token-0123456789").status == 200)
            let bearer = try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer s3cret-token-0123456789",
                                                   live.base + "/hls/live.m3u8?_HLS_msn=1"])
            #expect(bearer.output == "200")
            let playlist = try httpGet(live.base + "/hls/live.m3u8?token=s3cret-token-0123456789")
            #expect(String(decoding: playlist.body, as: UTF8.self).contains("init-1.mp4?token=s3cret-token-0123456789"), "URIs carry the token")
            #expect(throws: LiveViewError.self) { try LiveViewServer(output: live.live, host: "192.0.2.1", port: 0) }
            #expect(throws: LiveViewError.self) { try LiveViewServer(output: live.live, port: 0, accessToken: "has space") }
            #expect(throws: LiveViewError.self) { try LiveViewServer(output: live.live, host: "not-an-address", port: 0) }
            do {
                _ = try LiveViewServer(output: live.live, port: live.server.port)
                Issue.record("a second server on a port in use started")
            } catch {
                #expect(error.code == .cannotListen && error.message.contains("\(live.server.port)"), "\(error)")
            }
        }
    }
}

/// What `Tests/LiveView/hostile.py` reported of one run against a server on `port`.
struct HostileReport {
    var sent = 0
    var answers: [String: Int] = [:]
    var names: [String: [String: Int]] = [:]
    var slowest: [String: Double] = [:]
    var unexpected: [Any] = []
    var unexpectedCount = 0
    var leaks = 0
    var injected = 0

    /// Runs the script; the token goes in its environment, never on its command line.
    init(port: Int, rounds: Int, token: String? = nil) throws {
        let script = URL(fileURLWithPath: browserScript).deletingLastPathComponent().appendingPathComponent("hostile.py").path
        let result = try run("/usr/bin/env", ["python3", script, String(port), "--rounds", String(rounds), "--seconds", "150"],
                             environment: token.map { ["HOSTILE_TOKEN": $0] } ?? [:])
        guard let report = try JSONSerialization.jsonObject(with: result.outputData) as? [String: Any] else {
            throw MissingTool(description: "hostile.py gave no report: \(result.error.suffix(500))")
        }
        sent = report["sent"] as? Int ?? 0
        answers = report["answers"] as? [String: Int] ?? [:]
        names = report["names"] as? [String: [String: Int]] ?? [:]
        slowest = (report["slowest"] as? [String: NSNumber] ?? [:]).mapValues(\.doubleValue)
        unexpected = report["unexpected"] as? [Any] ?? []
        unexpectedCount = report["unexpectedCount"] as? Int ?? -1
        leaks = report["leaks"] as? Int ?? -1
        injected = report["injected"] as? Int ?? -1
    }

    /// Whether every request `name` was answered `status` (and there was one).
    func only(_ name: String, _ status: String) -> Bool { names[name].map { $0.keys.sorted() == [status] } ?? false }
}
