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

        /// A few thousand malformed, oversized, traversing and wrong-method requests: each is
        /// answered with a 4xx (505 for an HTTP version that is not 1.x) or closed, nothing leaks
        /// a file, and the recording and the server go on.
        @Test func hostileRequestsAreAnsweredAndTheRecordingGoesOn() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let movie = MovieFileOutput()
            let live = try await LiveSession.start(extra: [movie])
            try await movie.startRecording(to: directory.file("clip.mov"))
            let script = URL(fileURLWithPath: browserScript).deletingLastPathComponent().appendingPathComponent("hostile.py").path
            let attack = try run("/usr/bin/env", ["python3", script, String(live.server.port), "--rounds", "100"])
            let status = try httpGet(live.base + "/status.json")
            let result = await movie.stopRecording()
            await live.stop()
            let report = try #require(try JSONSerialization.jsonObject(with: attack.outputData) as? [String: Any], "\(attack.error)")
            let answers = report["answers"] as? [String: Int] ?? [:]
            #expect((report["sent"] as? Int ?? 0) >= 2000, "\(report)")
            #expect(report["leaks"] as? Int == 0)
            let unexpected = answers.filter { key, _ in !(key.hasPrefix("4") || key == "505" || key == "closed" || key == "timeout") }
            #expect(unexpected.isEmpty, "answers other than 4xx, 505 or a close: \(answers)")
            // Only the request whose headers never end waits for the server's idle limit.
            #expect((answers["timeout"] ?? 0) <= (report["sent"] as? Int ?? 0) / 25, "\(answers)")
            #expect(status.status == 200, "the server still answers after the attack")
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
