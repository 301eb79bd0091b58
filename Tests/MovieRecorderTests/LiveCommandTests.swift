import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder
extension LiveViewTestGroup {
    /// `movrec live` and `movrec record --live`: the page's address printed, the server answering
    /// while it runs, the HLS directory a player reads, and every bad option a usage error.
    @Suite struct LiveCommandTests {
        /// A port free a moment ago, for a command that must be told one.
        func freePort() throws -> Int {
            // Released when the server goes away at the end of this function.
            try LiveViewServer(output: LiveStreamOutput(), port: 0).port
        }

        @Test func liveServesAndWritesAnHLSDirectory() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let hls = directory.file("hls")
            try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
            let port = try freePort()
            let movrec = try RunningProgram(try movrecPath(), [
                "live", "--video", "testsrc", "--size", "640x360", "--audio", "tone", "--live", "127.0.0.1:\(port)",
                "--hls-directory", hls, "--hls-window", "3", "--duration", "7"])
            defer { movrec.killIfRunning() }
            // The server asked once movrec says where it is, until it says it streams.
            #expect(await movrec.waitForError(containing: "live view at http://127.0.0.1:\(port)/"), "\(movrec.error)")
            let streaming = await eventually {
                guard let status = try? httpGet("http://127.0.0.1:\(port)/status.json") else { return false }
                return status.status == 200 && String(decoding: status.body, as: UTF8.self).contains("\"streaming\":true")
            }
            #expect(streaming, "status.json never said it streams")
            #expect(await movrec.waitForExit(), "movrec live goes on past its duration")
            movrec.killIfRunning()
            #expect(movrec.process.terminationStatus == 0, "\(movrec.error)")
            let playlist = try String(contentsOfFile: hls + "/live.m3u8", encoding: .utf8)
            let listed = playlist.split(separator: "\n").filter { $0.hasPrefix("seg-") }
            #expect(listed.count == 3 && playlist.contains("#EXT-X-MAP:URI=\"init-1.mp4\""), "\(playlist)")
            let files = try FileManager.default.contentsOfDirectory(atPath: hls)
            #expect(files.filter { $0.hasPrefix("seg-") }.count <= 6, "files beyond the window and its grace are deleted: \(files.sorted())")
            #expect(!files.contains { $0.hasPrefix(".movrec-publish-") }, "no temporary file is left")
            #expect(files.allSatisfy { permissionBits(hls + "/" + $0) == 0o600 }, "the owner's alone by default: \(files.map { permissionBits(hls + "/" + $0) })")
            #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"), "a stopped stream leaves a finished playlist")
            let read = try run("ffmpeg", ["-v", "error", "-i", hls + "/live.m3u8", "-t", "10", "-f", "null", "-"])
            #expect(read.status == 0 && read.error.isEmpty, "\(read.error.suffix(400))")
        }

        @Test func recordWithLiveKeepsTheMovieWhole() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let port = try freePort()
            let result = try run(try movrecPath(), ["record", directory.file("clip.mov"), "--video", "testsrc", "--size", "640x360",
                                                    "--audio", "tone", "--duration", "3", "--rotation", "270", "--live", String(port)])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.error.contains("live view at http://127.0.0.1:\(port)/"))
            let video = try #require(try ffprobeStreams(directory.file("clip.mov")).first { $0.codec_type == "video" })
            #expect(video.nb_frames == "90" && video.rotation == 90, "\(video)")
        }

        @Test func badLiveOptionsAreUsageErrors() throws {
            let movrec = try movrecPath()
            for (arguments, expected) in [
                (["live", "--live", "nowhere"], "--live nowhere is not HOST:PORT"),
                (["live", "--live", "127.0.0.1:70000"], "is not HOST:PORT"),
                (["live", "--hls-window", "2"], "--hls-window 2"),
                (["record", "x.mov", "--live-size", "640x360"], "need --live or --hls-directory"),
                (["live", "--live-size", "wide"], "--live-size wide"),
                (["live", "extra.mov"], "unexpected argument"),
            ] {
                let result = try run(movrec, arguments)
                #expect(result.status == 2 && result.error.contains(expected), "\(arguments): \(result.status) \(result.error)")
            }
            let open = try run(movrec, ["live", "--video", "testsrc", "--live", "192.0.2.1:8080", "--duration", "1"])
            #expect(open.status == 1 && open.error.contains("needs an access token"), "\(open.error)")
        }

        /// The token comes from a private file (made with a random token when missing) or the
        /// environment, is at least 16 characters, and is never printed unless asked; an empty
        /// or short one, or a file others may read, is a usage error.
        @Test func theTokenComesFromAFileOrTheEnvironmentAndIsNeverPrinted() throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let movrec = try movrecPath(), file = directory.file("token")
            let live = ["live", "--video", "testsrc", "--audio", "none", "--duration", "0.5", "--live"]
            let made = try run(movrec, live + ["127.0.0.1:\(try freePort())", "--live-token-file", file])
            let token = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines)
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(made.status == 0 && made.error.contains("wrote a new access token to \(file)"), "\(made.error)")
            #expect(token.count == 32 && mode == 0o600, "\(token.count) characters, mode \(String(mode ?? 0, radix: 8))")
            #expect(!made.error.contains(token) && !made.output.contains(token), "the token is never printed")
            let port = try freePort()
            let printed = try run(movrec, live + ["127.0.0.1:\(port)", "--live-token-file", file, "--print-token"])
            #expect(printed.error.contains("live view at http://127.0.0.1:\(port)/?token=\(token)"), "\(printed.error)")
            let fromEnvironment = try run("/usr/bin/env", ["MOVREC_LIVE_TOKEN=from-the-environment-0123", movrec] + live + ["127.0.0.1:\(try freePort())"])
            #expect(fromEnvironment.status == 0 && !fromEnvironment.error.contains("from-the-environment"), "\(fromEnvironment.error)")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            for (arguments, environment, expected) in [
                (["--live-token-file", file], "", "may be read or written by others"),
                (["--live-token="], "", "--live-token has 0 characters"),
                (["--live-token", "fifteen-chars15"], "", "--live-token has 15 characters"),
                ([], "MOVREC_LIVE_TOKEN=short", "MOVREC_LIVE_TOKEN has 5 characters"),
                (["--live-token", "a-token-of-twenty-chars", "--live-token-file", file], "", "name two tokens"),
            ] {
                let result = try run("/usr/bin/env", [environment].filter { !$0.isEmpty } + [movrec] + live + ["127.0.0.1:\(port)"] + arguments)
                #expect(result.status == 2 && result.error.contains(expected), "\(arguments): \(result.status) \(result.error)")
            }
            let deprecated = try run(movrec, live + ["127.0.0.1:\(try freePort())", "--live-token", "a-token-of-twenty-chars"])
            #expect(deprecated.status == 0 && deprecated.error.contains("use --live-token-file PATH or MOVREC_LIVE_TOKEN"), "\(deprecated.error)")
        }
    }
}
