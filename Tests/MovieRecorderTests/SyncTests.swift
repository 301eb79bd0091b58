import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// Where a sound lands against the picture it belongs to, after a real encoder, muxer and
/// decoder: the test pattern flashes white and the tone clicks at every whole second of media
/// time (`--sync-marks`), and ``SyncChecker`` finds both in the decoded movie. File and
/// synthetic sources share one media clock, so every offset must be within a millisecond.
@Suite(.serialized) struct SyncTests {
    /// Records the live synthetic sources with marks for `seconds` through `movrec record`.
    func recordMarks(_ path: String, codec: String, seconds: Int = 4, extra: [String] = []) throws {
        let result = try run(movrecPath(), ["record", path, "--video", "testsrc", "--audio", "tone", "--sync-marks", "--size", "320x240",
                                            "--duration", String(seconds), "--audio-codec", codec, "--quiet"] + extra)
        #expect(result.status == 0, "movrec record: \(result.error)")
    }

    @Test(arguments: ["aac", "lpcm"])
    func syntheticSourcesRecordInSync(codec: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("synthetic-\(codec).mov")
        try recordMarks(path, codec: codec)
        try SyncChecker.measureWithFFmpeg(path).expectInSync("synthetic sources, \(codec), ffmpeg", atLeast: 3)
        if codec == "aac" {
            try SyncChecker.measureWithGStreamer(path, aac: true).expectInSync("synthetic sources, aac, GStreamer", atLeast: 3)
        }
    }

    @Test(arguments: ["aac", "lpcm"])
    func fileSourcesRecordInSync(codec: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try SyncMarkFiles.writeY4M(dir.file("marks.y4m"), seconds: 4)
        try SyncMarkFiles.writeWAV(dir.file("marks.wav"), seconds: 4)
        let path = dir.file("files-\(codec).mov")
        let result = try run(movrecPath(), ["record", path, "--video", dir.file("marks.y4m"), "--audio", dir.file("marks.wav"),
                                            "--audio-codec", codec, "--quiet"])
        #expect(result.status == 0, "movrec record: \(result.error)")
        let measured = try SyncChecker.measureWithFFmpeg(path)
        measured.expectInSync("Y4M + WAV sources, \(codec)", atLeast: 4)
        #expect(measured.flashes.first == 0, "the first frame is the first mark: \(measured)")
    }

    @Test(arguments: ["aac", "lpcm"])
    func muxedStreamsPlayInSync(codec: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try SyncMarkFiles.writeY4M(dir.file("marks.y4m"), seconds: 4)
        try SyncMarkFiles.writeWAV(dir.file("marks.wav"), seconds: 4)
        let x264 = try run("x264", ["--quiet", "--preset", "veryfast", "--crf", "30", "-o", dir.file("marks.264"), dir.file("marks.y4m")])
        #expect(x264.status == 0, "x264: \(x264.error)")
        let path = dir.file("mux-\(codec).mov")
        let result = try run(movrecPath(), ["mux", path, "--video", dir.file("marks.264"), "--audio", dir.file("marks.wav"),
                                            "--audio-codec", codec])
        #expect(result.status == 0, "movrec mux: \(result.error)")
        try SyncChecker.measureWithFFmpeg(path).expectInSync("movrec mux, \(codec)", atLeast: 4)
        if codec == "aac" {
            try SyncChecker.measureWithGStreamer(path, aac: true).expectInSync("movrec mux, aac, GStreamer", atLeast: 4)
        }
    }

    /// A fragmented AAC recording killed with SIGKILL and repaired keeps its sync. The kill
    /// comes once four fragments (a second each) are whole on the disk, and repair recovers
    /// every one of them.
    @Test func killedAndRepairedRecordingStaysInSync() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("killed.mov")
        let movrec = try RunningProgram(try movrecPath(), ["record", path, "--video", "testsrc", "--audio", "tone", "--sync-marks",
                                                           "--size", "320x240", "--quiet"])
        defer { movrec.killIfRunning() }
        #expect(await movrec.waitForError(containing: "movrec: recording to"), "movrec did not start: \(movrec.error)")
        let fragments = await eventually { wholeFragmentCount(path) >= 4 }
        #expect(fragments, "\(wholeFragmentCount(path)) fragments on the disk")
        movrec.killIfRunning()
        let whole = wholeFragmentCount(path)
        let repaired = dir.file("repaired.mov")
        let report = try MovieFileRepair.repair(path: path, outputPath: repaired)
        #expect(report.fragmentCount >= max(whole, 4), "\(report); \(whole) whole fragments on the disk")
        try SyncChecker.measureWithFFmpeg(repaired).expectInSync("killed and repaired, aac", atLeast: 3)
        try SyncChecker.measureWithGStreamer(repaired, aac: true).expectInSync("killed and repaired, aac, GStreamer", atLeast: 3)
    }

    /// Pausing takes the same time out of audio and video: the marks after the resume line up
    /// as those before it do.
    @Test func pausedAndResumedRecordingStaysInSync() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("paused.mov")
        let session = CaptureSession()
        let output = MovieFileOutput()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30), marksSeconds: true))
            try config.addInput(ToneSource(marksSeconds: true))
            try config.addOutput(output)
        }
        try await session.startRunning()
        try await output.startRecording(to: path)
        // Pause once 1.8 s are written and resume for 2.6 s more, each half a second away from
        // the marks. Media is cut as it arrives, so on a starved machine a pause may still split
        // a mark (its frame kept, its click not): the check allows that one mark at the cut.
        #expect(await eventually { output.recordedDuration >= .milliseconds(1800) }, "\(output.recordedDuration) recorded")
        try await sleepUntilHalfASecondFromTheMarks()
        output.pauseRecording()
        let atPause = output.recordedDuration
        try await Task.sleep(for: .milliseconds(500))
        try await sleepUntilHalfASecondFromTheMarks()
        output.resumeRecording()
        #expect(await eventually { output.recordedDuration >= atPause + .milliseconds(2600) }, "\(output.recordedDuration) recorded")
        let result = try #require(await output.stopRecording())
        await session.stopRunning()
        #expect(result.isPlayable && result.error == nil)
        try SyncChecker.measureWithFFmpeg(path).expectInSync("paused and resumed, aac", atLeast: 4,
                                                             cutAt: Double(atPause.components.seconds) + Double(atPause.components.attoseconds) / 1e18)
    }

    /// Sleeps until the synthetic sources' shared clock is half a second past a whole second.
    func sleepUntilHalfASecondFromTheMarks() async throws {
        let phase = (MonotonicClock.now() - SyncMarkClock.start()) % 1_000_000_000
        let wait = (1_500_000_000 - phase) % 1_000_000_000
        try await Task.sleep(for: .nanoseconds(Int64(wait)))
    }

    /// Headless Chromium plays a default recording and decodes its AAC audio.
    @Test func chromiumDecodesTheAudio() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try recordMarks(dir.file("movie.mov"), codec: "aac", seconds: 2)
        let (bytes, text) = try chromiumAudioDecoded(of: dir.file("movie.mov"), in: dir)
        #expect(bytes > 0, "Chromium decoded no audio: '\(text)'")
    }
}
