import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// A `movrec record … --rtsp` running beside a test: started, and waited for until it serves and
/// records, so no client is timed against a guess of how long it takes to start.
struct RTSPRecording {
    let program: RunningProgram
    let port: Int
    let movie: String

    /// A port free a moment ago, for a command that must be told one.
    static func freePort() throws -> Int {
        try RTSPServer(main: nil, sub: LiveStreamOutput(), port: 0).port
    }

    static func start(in directory: TemporaryDirectory, seconds: Int, size: String = "640x360", extra: [String] = [],
                      credentials: String? = nil) async throws -> RTSPRecording {
        let port = try freePort()
        let movie = directory.file("rtsp-\(port).mov")
        var arguments = ["record", movie, "--video", "testsrc", "--size", size, "--audio", "tone", "--duration", String(seconds),
                         "--rtsp", "127.0.0.1:\(port)"] + extra
        if let credentials {
            let file = directory.file("credentials")
            try SecretFile.create(file, holding: credentials)
            arguments += ["--rtsp-credentials", file]
        }
        let program = try RunningProgram(try movrecPath(), arguments)
        let started = await program.waitForError(containing: "rtsp://127.0.0.1:\(port)/sub")
        let recording = await program.waitForError(containing: "recording to")
        #expect(started && recording, "movrec did not serve: \(program.error)")
        return RTSPRecording(program: program, port: port, movie: movie)
    }

    func url(_ path: String, user: String? = nil) -> String {
        "rtsp://\(user.map { $0 + "@" } ?? "")127.0.0.1:\(port)\(path)"
    }

    /// Waits for the recording to end by itself and returns its result line.
    func finish() async -> String {
        #expect(await program.waitForExit(), "movrec goes on past its duration")
        program.killIfRunning()
        #expect(program.process.terminationStatus == 0, "\(program.error)")
        return program.output
    }
}

extension LiveViewTestGroup {
    /// The RTSP server through real clients: ffprobe, ffmpeg (TCP and UDP), GStreamer's
    /// rtspsrc and aiortsp read both paths, in sync, with Digest credentials, beside a
    /// recording that loses nothing.
    @Suite struct RTSPServerTests {
        @Test func ffmpegAndGStreamerReadBothPathsOverTCPAndUDP() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let recording = try await RTSPRecording.start(in: directory, seconds: 40)
            defer { recording.program.killIfRunning() }
            for path in ["/main", "/sub"] {
                for transport in ["tcp", "udp"] {
                    let probe = try run("ffprobe", ["-v", "error", "-rtsp_transport", transport, "-show_entries", "stream=codec_name",
                                                    "-of", "csv=p=0", recording.url(path)])
                    #expect(probe.status == 0 && probe.output.contains("h264") && probe.output.contains("aac"),
                            "ffprobe \(path) \(transport): \(probe.output) \(probe.error)")
                    let decoded = try run("ffmpeg", ["-nostdin", "-rtsp_transport", transport, "-i", recording.url(path), "-t", "3",
                                                     "-vf", "showinfo", "-f", "null", "-"])
                    let errors = decoded.error.split(whereSeparator: \.isNewline).filter { $0.localizedCaseInsensitiveContains("error") }
                    let pictures = Set(decoded.error.split(whereSeparator: \.isNewline).compactMap { SyncChecker.field($0, after: "checksum:") })
                    #expect(decoded.status == 0 && errors.isEmpty, "ffmpeg \(path) \(transport): \(errors.prefix(5))")
                    #expect(pictures.count >= 20, "ffmpeg \(path) \(transport): the test pattern advances, \(pictures.count) pictures")
                }
                let discovered = try run("gst-discoverer-1.0", [recording.url(path)])
                #expect(discovered.output.contains("H.264") && discovered.output.contains("AAC"), "gst-discoverer \(path): \(discovered.output)")
                let played = try run("gst-launch-1.0", [
                    "rtspsrc", "location=\(recording.url(path))", "latency=0", "name=s",
                    "s.", "!", "queue", "!", "decodebin", "!", "fakesink", "num-buffers=60",
                    "s.", "!", "queue", "!", "decodebin", "!", "fakesink", "num-buffers=60"])
                #expect(played.status == 0 && played.output.contains("Got EOS"), "GStreamer \(path): \(played.output.suffix(300)) \(played.error)")
            }
            recording.program.send(SIGINT)
            let result = await recording.finish()
            #expect(result.contains("frames") && !result.contains("dropped") && !result.contains("NOT PLAYABLE"), "\(result)")
        }

        @Test func audioAndVideoArriveInSyncThroughRTSP() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let recording = try await RTSPRecording.start(in: directory, seconds: 40, extra: ["--sync-marks"])
            defer { recording.program.killIfRunning() }
            for path in ["/sub", "/main"] {
                // Re-encoded without B-frames: RTP carries no decode times for a copy of /main's.
                let received = directory.file("received\(path.dropFirst()).mkv")
                let copy = try run("ffmpeg", ["-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i", recording.url(path), "-t", "6",
                                              "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-c:a", "copy", received])
                #expect(copy.status == 0, "ffmpeg \(path): \(copy.error)")
                // Each flash with its click within one video frame at 30 frames a second. FFmpeg
                // times each stream from its own first packet until that stream's first sender
                // report, so the first pair is not judged; a click before the first picture or
                // after the last one has no flash to pair with.
                let measured = try SyncChecker.measureWithFFmpeg(received)
                let judged = measured.offsets.dropFirst()
                #expect(judged.count >= 3 && judged.allSatisfy { abs($0) <= 1000.0 / 30 }, "RTSP \(path): \(measured)")
                print("sync through RTSP \(path): \(measured)")
            }
            recording.program.send(SIGINT)
            _ = await recording.finish()
        }

        /// Eight clients read both paths over TCP and UDP beside a 720p recording while a ninth,
        /// on TCP, stops reading (SIGSTOP): the eight are served throughout, the recording
        /// drops nothing, and the stopped client is closed once its session times out.
        @Test func eightClientsAndAStoppedOneCostTheRecordingNothing() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let movie = MovieFileOutput()
            let live = try await LiveSession.start(width: 1280, height: 720, extra: [movie])
            let rtsp = try RTSPServer(main: .recording(movie), sub: live.live, port: 0, sessionTimeout: 10)
            try await movie.startRecording(to: directory.file("clip.mov"))
            func client(_ path: String, _ transport: String, seconds: Int) throws -> RunningProgram {
                try RunningProgram(try toolPath("ffmpeg"), ["-nostdin", "-rtsp_transport", transport, "-i",
                                                            "rtsp://127.0.0.1:\(rtsp.port)\(path)", "-t", String(seconds), "-c", "copy", "-f", "null", "-"])
            }
            let stopped = try client("/main", "tcp", seconds: 600)
            defer { stopped.send(SIGCONT); stopped.killIfRunning() }
            #expect(await stopped.waitForError(containing: "frame="), "the ninth client never received: \(stopped.error.suffix(300))")
            stopped.send(SIGSTOP)
            let transports = ["tcp", "tcp", "udp", "udp"]
            let clients = try ["/main", "/sub"].flatMap { path in try transports.map { try client(path, $0, seconds: 8) } }
            for (index, reader) in clients.enumerated() {
                // A reader may stall right at its end (a UDP reader once waited for the packet past
                // its 8 s that never came); what it received before shows whether it was served.
                let exited = await reader.waitForExit(deadline: .seconds(30))
                reader.killIfRunning()
                let frames = reader.error.components(separatedBy: "frame=").last.flatMap { Int($0.drop { $0 == " " }.prefix { $0.isNumber }) } ?? 0
                // Were the stopped client holding the others up, they would stall until its
                // session times out (10 s), longer than their 8 s read. Below that, losses are
                // the readers' own on a starved machine: over UDP, datagrams their socket had no
                // room for; over TCP, packets the server drops for a reader whose backlog is
                // full; and ffmpeg's clock may jump at the first sender report. Half the 240
                // pictures shows a reader that was served throughout.
                let least = 120
                #expect(frames >= least && (!exited || reader.process.terminationStatus == 0),
                        "client \(index): \(frames) frames, \(exited ? "exited" : "stalled"), \(reader.error.suffix(300))")
                print("RTSP client \(index) (\(transports[index % transports.count])): \(frames) frames\(exited ? "" : ", stalled at its end")")
            }
            // Closed when its session times out: 10 s after its last delivery, and 5 more.
            #expect(await eventually { rtsp.connectedClientCount == 0 }, "the stopped client is still connected")
            let result = await movie.stopRecording()
            await rtsp.stop()
            await live.stop()
            let recorded = try #require(result)
            #expect(recorded.isPlayable && recorded.droppedFrameCount == 0, "\(recorded)")
        }

        /// `Tests/RTSP/hostile.py` against a server with credentials and one without: garbage,
        /// oversized and missing headers, wrong CSeq, unknown methods, SETUP to a foreign
        /// destination or multicast, requests that trickle in, 20 connections held open, and a
        /// flood of 2,000 requests. Each is answered 4xx or closed, every refusal that should be
        /// is, the server answers afterwards, and the recording keeps every frame.
        @Test func hostileRequestsAreAnsweredOrClosedAndTheRecordingGoesOn() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let script = URL(fileURLWithPath: browserScript).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("RTSP/hostile.py").path
            for credentials in [nil, "camera:correct-horse-9"] {
                let subdirectory = try TemporaryDirectory()
                defer { subdirectory.cleanUp() }
                let recording = try await RTSPRecording.start(in: subdirectory, seconds: 300, credentials: credentials)
                defer { recording.program.killIfRunning() }
                let userFile = credentials.map { _ in ["--user-file", subdirectory.file("credentials")] } ?? []
                let report = try run("/usr/bin/env", ["python3", script, "127.0.0.1", String(recording.port), "--seconds", "15"] + userFile)
                #expect(report.status == 0, "hostile.py, credentials \(credentials != nil): \(report.error.suffix(800))")
                #expect(report.output.contains("\"alive_at_end\": true"), "\(report.output.suffix(300))")
                #expect(!recording.program.error.contains("CRITICAL") && !recording.program.error.contains("correct-horse-9"),
                        "\(recording.program.error.suffix(500))")
                recording.program.send(SIGINT)
                let result = await recording.finish()
                #expect(!result.contains("dropped") && !result.contains("NOT PLAYABLE"), "\(result)")
            }
        }

        /// A third client, PyPI's aiortsp, reads both paths over TCP: IDR pictures with their
        /// SPS and PPS in front, two seconds of pictures, sender reports.
        @Test func aiortspReadsBothPaths() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let installed = try run("/usr/bin/env", ["python3", "-c", "import aiortsp"])
            if installed.status != 0 {
                let pip = try run("/usr/bin/env", ["python3", "-m", "pip", "install", "--quiet", "aiortsp==1.4.0"])
                try #require(pip.status == 0, "aiortsp is missing and pip could not install it: \(pip.error.suffix(300))")
            }
            let script = URL(fileURLWithPath: browserScript).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("RTSP/aiortsp-client.py").path
            let recording = try await RTSPRecording.start(in: directory, seconds: 120, credentials: "camera:correct-horse-9")
            defer { recording.program.killIfRunning() }
            for path in ["/main", "/sub"] {
                let read = try run("/usr/bin/env", ["python3", script, recording.url(path), "--seconds", "4",
                                                    "--user-file", directory.file("credentials")])
                #expect(read.status == 0 && read.output.contains("\"ok\": true"), "aiortsp \(path): \(read.output.suffix(500)) \(read.error.suffix(300))")
            }
            recording.program.send(SIGINT)
            _ = await recording.finish()
        }

        /// RTP has no track matrix: both paths carry the display-orientation SEI in front of
        /// their keyframes, which FFmpeg turns the decoded picture by.
        @Test func bothPathsCarryTheOrientationForFFmpeg() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let recording = try await RTSPRecording.start(in: directory, seconds: 60, extra: ["--rotation", "90"])
            defer { recording.program.killIfRunning() }
            for path in ["/main", "/sub"] {
                let frames = try run("ffprobe", ["-v", "error", "-rtsp_transport", "tcp", "-read_intervals", "%+3", "-select_streams", "v",
                                                 "-show_frames", "-show_entries", "frame=key_frame:frame_side_data=rotation", "-of", "compact",
                                                 recording.url(path)])
                #expect(frames.output.contains("rotation=-90"), "ffprobe \(path): \(frames.output.prefix(400)) \(frames.error.suffix(200))")
                let picture = directory.file("turned\(path.dropFirst()).png")
                let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i", recording.url(path),
                                                 "-frames:v", "1", picture])
                let size = try run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", picture])
                #expect(decoded.status == 0 && size.output.trimmingCharacters(in: .whitespacesAndNewlines) == "360,640",
                        "ffmpeg turns \(path) upright: \(size.output) \(decoded.error)")
            }
            recording.program.send(SIGINT)
            _ = await recording.finish()
        }

        /// `--rtsp-turn-pixels` turns `/sub` in pixels for clients that ignore the SEI: GStreamer
        /// decodes it portrait, unmarked, and it matches the picture FFmpeg turns `/main` to.
        @Test func subTurnedInPixelsMatchesWhatFFmpegTurns() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let recording = try await RTSPRecording.start(in: directory, seconds: 60, extra: ["--rotation", "90", "--rtsp-turn-pixels"])
            defer { recording.program.killIfRunning() }
            let probe = try run("ffprobe", ["-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=width,height:stream_side_data=rotation",
                                            "-select_streams", "v", "-of", "compact", recording.url("/sub")])
            #expect(probe.output.contains("width=360|height=640") && !probe.output.contains("rotation"), "\(probe.output)")
            let picture = directory.file("gstreamer.png")
            let decoded = try run("gst-launch-1.0", ["-q", "rtspsrc", "location=\(recording.url("/sub"))", "latency=0", "!", "rtph264depay", "!",
                                                     "avdec_h264", "!", "videoconvert", "!", "pngenc", "snapshot=true", "!", "filesink",
                                                     "location=\(picture)"])
            let size = try run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", picture])
            #expect(decoded.status == 0 && size.output.hasPrefix("360,640"), "GStreamer shows /sub portrait: \(size.output) \(decoded.error)")
            // 8x8 grey thumbnails: /sub as decoded, /main as FFmpeg turns it by the SEI.
            let sub = try thumbnail(of: recording.url("/sub"), noautorotate: true)
            let main = try thumbnail(of: recording.url("/main"), noautorotate: false)
            let difference = zip(sub, main).map { abs(Int($0) - Int($1)) }.reduce(0, +) / max(1, sub.count)
            #expect(sub.count == 64 && main.count == 64 && difference < 24, "mean difference \(difference): \(sub) against \(main)")
            recording.program.send(SIGINT)
            _ = await recording.finish()
        }

        /// An 8x8 grey thumbnail of a stream's first decoded picture, turned by the SEI or not.
        func thumbnail(of url: String, noautorotate: Bool) throws -> [UInt8] {
            let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-rtsp_transport", "tcp"] + (noautorotate ? ["-noautorotate"] : [])
                                 + ["-i", url, "-frames:v", "1", "-vf", "scale=8:8", "-pix_fmt", "gray", "-f", "rawvideo", "-"])
            return [UInt8](result.outputData)
        }

        /// `movrec live --rtsp`: no movie output, and both paths served just the same, `/main`
        /// at the camera's full size from an encode that runs while it is watched.
        @Test func liveServesBothPathsWithoutARecording() async throws {
            let port = try RTSPRecording.freePort()
            let live = try RunningProgram(try movrecPath(), ["live", "--video", "testsrc", "--size", "1280x720", "--audio", "tone",
                                                             "--live", "127.0.0.1:0", "--rtsp", "127.0.0.1:\(port)", "--duration", "60"])
            defer { live.killIfRunning() }
            #expect(await live.waitForError(containing: "rtsp://127.0.0.1:\(port)/sub"), "\(live.error)")
            for (path, size) in [("/main", "1280,720"), ("/sub", "640,360")] {
                let probe = try run("ffprobe", ["-v", "error", "-rtsp_transport", "tcp", "-select_streams", "v", "-show_entries",
                                                "stream=width,height", "-of", "csv=p=0", "rtsp://127.0.0.1:\(port)\(path)"])
                #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == size, "\(path): \(probe.output) \(probe.error)")
                let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-rtsp_transport", "udp", "-i", "rtsp://127.0.0.1:\(port)\(path)",
                                                 "-t", "2", "-f", "null", "-"])
                #expect(decoded.status == 0 && decoded.error.isEmpty, "\(path): \(decoded.error.suffix(300))")
            }
            live.send(SIGINT)
            #expect(await live.waitForExit(), "movrec live goes on")
            live.killIfRunning()
            #expect(live.process.terminationStatus == 0, "\(live.error.suffix(300))")
        }

        @Test func credentialsAreAskedOfEveryClient() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let recording = try await RTSPRecording.start(in: directory, seconds: 40, credentials: "camera:correct-horse-9")
            defer { recording.program.killIfRunning() }
            let anonymous = try run("ffprobe", ["-v", "error", "-rtsp_transport", "tcp", recording.url("/main")])
            #expect(anonymous.status != 0 && anonymous.error.contains("401"), "\(anonymous.error)")
            let wrong = try run("ffprobe", ["-v", "error", "-rtsp_transport", "tcp", recording.url("/main", user: "camera:wrong-horse-9")])
            #expect(wrong.status != 0 && wrong.error.contains("401"), "\(wrong.error)")
            let right = try run("ffprobe", ["-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                            recording.url("/sub", user: "camera:correct-horse-9")])
            #expect(right.status == 0 && right.output.contains("h264"), "\(right.error)")
            let played = try run("gst-launch-1.0", ["rtspsrc", "location=\(recording.url("/sub"))", "user-id=camera", "user-pw=correct-horse-9",
                                                    "latency=0", "!", "decodebin", "!", "fakesink", "num-buffers=30"])
            #expect(played.status == 0, "GStreamer with credentials: \(played.output.suffix(300))")
            #expect(!recording.program.error.contains("correct-horse-9"), "the password is never printed")
            recording.program.send(SIGINT)
            _ = await recording.finish()
        }

        @Test func badAddressesAndCredentialsAreRefusedAtStart() throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let open = try run(try movrecPath(), ["record", directory.file("a.mov"), "--video", "testsrc", "--duration", "1",
                                                  "--rtsp", "0.0.0.0:\(try RTSPRecording.freePort())"])
            #expect(open.status != 0 && open.error.contains("needs credentials"), "\(open.error)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("a.mov")), "nothing is recorded")
            let shared = directory.file("shared")
            try "camera:correct-horse-9\n".write(toFile: shared, atomically: false, encoding: .utf8)
            chmod(shared, 0o644)
            let readable = try run(try movrecPath(), ["record", directory.file("b.mov"), "--video", "testsrc", "--duration", "1",
                                                      "--rtsp", "127.0.0.1:0", "--rtsp-credentials", shared])
            #expect(readable.status == 2 && readable.error.contains("chmod 600"), "\(readable.error)")
            let short = try run(try movrecPath(), ["record", directory.file("c.mov"), "--video", "testsrc", "--duration", "1",
                                                   "--rtsp", "127.0.0.1:0"], environment: ["MOVREC_RTSP_CREDENTIALS": "camera:short"])
            #expect(short.status == 2 && short.error.contains("8 to 128"), "\(short.error)")
            #expect(!short.error.contains("camera:short"), "the password is never printed")
        }

        @Test func credentialsFromAFileAndTheEnvironment() throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let file = directory.file("credentials")
            try SecretFile.create(file, holding: "nvr:long-enough-1")
            let read = try RTSPCredentials(contentsOfFile: file)
            #expect(read.user == "nvr" && read.password == "long-enough-1" && !"\(read)".contains("long-enough-1"))
            #expect(throws: RTSPServerError.self) { try RTSPCredentials(contentsOfFile: directory.file("missing")) }
            #expect(throws: RTSPServerError.self) { try RTSPCredentials(user: "a b", password: "long-enough-1") }
            #expect(throws: RTSPServerError.self) { try RTSPCredentials(user: "nvr", password: "with space 1") }
            #expect(try RTSPCredentials(environmentVariable: "MOVREC_TEST_UNSET_VARIABLE") == nil)
        }
    }
}
