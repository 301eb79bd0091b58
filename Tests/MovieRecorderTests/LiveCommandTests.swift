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
    }
}
