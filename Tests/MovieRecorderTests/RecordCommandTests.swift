import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// `movrec record` as a user runs it: stopping with Ctrl-C or SIGTERM leaves a finalized movie;
/// bad input gets an actionable message and leaves no file that claims to be complete.
@Suite(.serialized) struct RecordCommandTests {
    /// The signal comes a second after movrec says it records (a signal before it has set its
    /// handlers would meet the inherited disposition); the movie holds that second, and no more
    /// than the program ran.
    @Test(arguments: [SIGINT, SIGTERM])
    func signalStopsCleanlyWithAFinalizedMovie(_ signal: Int32) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("signal.mov")
        let launched = MonotonicClock.now()
        let movrec = try RunningProgram(try movrecPath(), ["record", path, "--video", "testsrc", "--audio", "tone", "--size", "320x240",
                                                           "--rotation", "90"])
        defer { movrec.killIfRunning() }
        #expect(await movrec.waitForError(containing: "movrec: recording to"), "movrec did not start: \(movrec.error)")
        try await Task.sleep(for: .seconds(1))
        movrec.send(signal)
        #expect(await movrec.waitForExit(), "movrec goes on after the signal")
        let ran = Double(MonotonicClock.now() - launched) / 1e9
        movrec.killIfRunning()
        #expect(movrec.process.terminationStatus == 0, "stderr: \(movrec.error)")
        #expect(await movrec.waitForError(containing: "finalizing"), "\(movrec.error)")
        #expect(await eventually { movrec.output.contains("frames") }, "\(movrec.output)")
        let streams = try ffprobeStreams(path)
        let video = try #require(streams.first { $0.codec_type == "video" })
        #expect(video.rotation == -90)
        let duration = Double(video.duration ?? "") ?? 0
        #expect(duration > 0.9 && duration < ran, "recorded \(duration) s while movrec ran \(ran) s")
        #expect(try decodeAllFrames(path).errors.isEmpty)
    }

    @Test func durationOptionStopsTheRecording() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("timed.mov")
        let result = try run(movrecPath(), ["record", path, "--video", "testsrc", "--audio", "tone", "--size", "160x120",
                                            "--duration", "1", "--quiet"])
        #expect(result.status == 0, "\(result.error)")
        let video = try #require(try ffprobeStreams(path).first { $0.codec_type == "video" })
        #expect(abs((Double(video.duration ?? "") ?? 0) - 1.0) < 0.001)
    }

    /// Runs `movrec record` expecting failure; checks the message and that no file was left.
    func expectFailure(_ arguments: [String], output: String, message: String) throws {
        let result = try run(movrecPath(), ["record", output] + arguments)
        #expect(result.status != 0)
        #expect(result.error.contains(message), "stderr: \(result.error)")
        #expect(!FileManager.default.fileExists(atPath: output), "no file may be left behind")
    }

    @Test func badInputGetsActionableErrors() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = dir.file("bad.mov")
        try expectFailure(["--video", "/dev/video99"], output: out, message: "/dev/video99: opening failed: No such file or directory")
        try expectFailure(["--video", "testsrc", "--size", "321x240"], output: out, message: "321")
        try expectFailure(["--video", "testsrc", "--rotation", "45"], output: out, message: "rotation angle 45.0° is not supported")
        try expectFailure(["--video", "testsrc", "--audio", "hw:97,0"], output: out, message: "hw:97,0")
        try expectFailure(["--video", "testsrc", "--preset", "warp"], output: out, message: "preset 'warp' is not known to x264")
        try expectFailure(["--video", "testsrc"], output: dir.file("missing/dir/x.mov"), message: "No such file or directory")
    }

    @Test func existingOutputIsRefusedUnlessOverwriteIsGiven() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = dir.file("exists.mov")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: out))
        let refused = try run(movrecPath(), ["record", out, "--video", "testsrc", "--size", "160x120", "--duration", "0.2"])
        #expect(refused.status == 1)
        #expect(refused.error.contains("File exists"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep")
        let replaced = try run(movrecPath(), ["record", out, "--video", "testsrc", "--size", "160x120", "--duration", "0.2",
                                              "--overwrite", "--quiet"])
        #expect(replaced.status == 0, "\(replaced.error)")
        #expect(try MovieInfo(source: RandomAccessFile(path: out, mode: .read)).videoTrack != nil)
    }

    @Test func devicesListsWhatThereIs() throws {
        let result = try run(movrecPath(), ["devices"])
        #expect(result.status == 0)
        #expect(result.output.contains("cameras:") && result.output.contains("microphones:"))
        #expect(result.output.contains("--video testsrc"))
    }
}

/// `movrec record --gravity` and `movrec photo`: the angle from an accelerometer (a sysfs-shaped
/// fixture tree), and a still with its Exif orientation.
@Suite struct GravityAndPhotoCommandTests {
    @Test(arguments: [("landscape-left", -90), ("upside-down", -180), ("landscape-right", 90), ("portrait", 0)])
    func recordTakesTheAngleFromTheAccelerometer(_ fixtureCase: String, ffprobeRotation: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("gravity.mov")
        let device = fixture("iio/\(fixtureCase)/iio:device0")
        let result = try run(movrecPath(), ["record", path, "--video", "testsrc", "--size", "160x120", "--duration", "0.3",
                                            "--gravity", "iio:" + device, "--quiet"])
        #expect(result.status == 0, "\(result.error)")
        let video = try #require(try ffprobeStreams(path).first { $0.codec_type == "video" })
        #expect((video.rotation ?? 0) == ffprobeRotation, "\(fixtureCase)")
    }

    @Test func gravityAndRotationExcludeEachOther() throws {
        let result = try run(movrecPath(), ["record", "/tmp/x.mov", "--video", "testsrc", "--gravity", "manual", "--rotation", "90"])
        #expect(result.status == 2)
        #expect(result.error.contains("--rotation and --gravity exclude each other"))
    }

    @Test(arguments: ["inf", "nan", "0", "-1", "1e300"])
    func aFragmentIntervalThatIsNotADurationIsAUsageError(interval: String) throws {
        let result = try run(movrecPath(), ["record", "/tmp/never.mov", "--video", "testsrc", "--fragment-interval", interval])
        #expect(result.status == 2, "\(interval): \(result.error)")
        #expect(result.error.contains("--fragment-interval \(interval) is not a positive number of seconds"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.mov"))
    }

    /// Bad event clip options are usage errors (exit 2) naming the option; a directory that
    /// does not exist is the recording's error (exit 1) naming it; no movie is left behind.
    @Test func badEventOptionsAreErrorsNamingThem() throws {
        for (arguments, status, expected) in [
            (["--event-pre", "5"], Int32(2), "need --event-directory DIR"),
            (["--event-directory", "/tmp", "--event-pre", "-1"], 2, "--event-pre -1 is not a number of seconds"),
            (["--event-directory", "/tmp", "--event-post", "soon"], 2, "--event-post soon"),
            (["--event-directory", "/tmp", "--event-on-impact", "hard"], 2, "--event-on-impact hard is not a change of acceleration"),
            (["--event-directory", "/tmp", "--event-on-impact", "0g"], 2, "--event-on-impact 0g"),
            (["--event-directory", "/tmp", "--keep-events-bytes", "lots"], 2, "--keep-events-bytes lots is not a size"),
            (["--event-directory", "/nonexistent/events"], 1, "the directory /nonexistent/events does not exist"),
        ] {
            let result = try run(movrecPath(), ["record", "/tmp/never-event.mov", "--video", "testsrc", "--duration", "0.2"] + arguments)
            #expect(result.status == status && result.error.contains(expected), "\(arguments): \(result.status) \(result.error)")
            #expect(!FileManager.default.fileExists(atPath: "/tmp/never-event.mov"))
        }
    }

    /// SIGUSR1 without `--event-directory` saves nothing and says so; the recording goes on.
    @Test func sigusr1WithoutEventClipsIsExplained() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: try movrecPath())
        recorder.arguments = ["record", dir.file("plain.mov"), "--video", "testsrc", "--size", "160x120", "--quiet"]
        #expect(FileManager.default.createFile(atPath: dir.file("stderr.txt"), contents: nil))
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("stderr.txt")))
        try recorder.run()
        defer { if recorder.isRunning { kill(recorder.processIdentifier, SIGKILL) } }
        func text() -> String { (try? String(contentsOfFile: dir.file("stderr.txt"), encoding: .utf8)) ?? "" }
        /// Waits up to about 30 s (a loaded machine's) for `condition`.
        func waitFor(_ condition: () -> Bool) async throws -> Bool {
            for _ in 0..<300 {
                if condition() { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return condition()
        }
        // Signalled once it records, and recording until stopped: a SIGUSR1 before movrec has
        // set its handler is the inherited disposition's (a test runner may ignore it).
        #expect(try await waitFor { text().contains("movrec: recording to") })
        kill(recorder.processIdentifier, SIGUSR1)
        let explained = try await waitFor { text().contains("SIGUSR1 saves an event clip only with --event-directory") }
        #expect(explained, "\(text())")
        #expect(recorder.isRunning, "the recording goes on")
        kill(recorder.processIdentifier, SIGINT)
        #expect(try await waitFor { !recorder.isRunning })
        if !recorder.isRunning { #expect(recorder.terminationStatus == 0, "\(text())") }
    }

    @Test func photoWritesExifOrientation() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("still.jpg")
        let result = try run(movrecPath(), ["photo", path, "--video", "testsrc", "--size", "320x240", "--rotation", "270", "--mirror"])
        #expect(result.status == 0, "\(result.error)")
        let exif = try run("exiftool", ["-s3", "-n", "-Orientation", "-ImageWidth", path]).output
            .split(separator: "\n").map(String.init)
        #expect(exif == ["7", "320"], "270° mirrored is Exif 7; the pixels keep their size")
    }
}
