import Foundation
import Testing
@testable import MovieContainer
@testable import MovieCapture
@testable import MovieRecorder

/// Outputs belong to one session at a time, and a recording ended by the session is over when
/// the session's call returns, as in AVFoundation.
@Suite(.serialized) struct SessionMembershipTests {
    func liveSession(with output: MovieFileOutput) async throws -> CaptureSession {
        let session = CaptureSession()
        let video = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        try await session.configure { config in
            try config.addInput(video)
            try config.addOutput(output)
        }
        try await session.startRunning()
        return session
    }

    @Test func anOutputServesOneSessionAtATime() async throws {
        let photo = PhotoOutput()
        let first = CaptureSession(), second = CaptureSession()
        #expect(await first.canAddOutput(photo))
        try await first.addOutput(photo)
        #expect(await !first.canAddOutput(photo), "already in this session")
        #expect(await !second.canAddOutput(photo), "in another session")
        await #expect(throws: CaptureError.self) { try await second.addOutput(photo) }
        try await first.removeOutput(photo)
        #expect(await second.canAddOutput(photo))
        try await second.addOutput(photo)
    }

    @Test func canAddInputIsOnTheSession() async throws {
        let session = CaptureSession()
        let video = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        let other = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        #expect(await session.canAddInput(video))
        try await session.addInput(video)
        #expect(await !session.canAddInput(other), "a session has one video input")
        #expect(await session.canAddInput(try ToneSource()))
    }

    @Test func removingTheMovieOutputEndsItsRecordingBeforeReturning() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let movie = MovieFileOutput()
        let session = try await liveSession(with: movie)
        try await movie.startRecording(to: dir.file("removed.mov"))
        #expect(await eventually { movie.recordedDuration > .zero }, "nothing recorded")  // a movie to finalize
        try await session.removeOutput(movie)
        #expect(!movie.isRecording, "isRecording is false once removeOutput returns")
        let result = try #require(await movie.stopRecording())
        #expect(result.isPlayable)
        #expect(result.error?.message.contains("the output was removed from the capture session") == true, "\(String(describing: result.error))")
        #expect(result.error?.message.contains("session stopped") == false)
        #expect(await session.isRunning, "the session still runs")
        await session.stopRunning()
    }

    @Test func stoppingTheSessionEndsTheRecordingBeforeReturning() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let movie = MovieFileOutput()
        let session = try await liveSession(with: movie)
        try await movie.startRecording(to: dir.file("stopped.mov"))
        #expect(await eventually { movie.recordedDuration > .zero }, "nothing recorded")  // a movie to finalize
        await session.stopRunning()
        #expect(!movie.isRecording, "isRecording is false once stopRunning returns")
        let result = try #require(await movie.stopRecording())
        #expect(result.isPlayable)
        #expect(result.error?.message.contains("the capture session stopped") == true, "\(String(describing: result.error))")
    }

    @Test func rotationAngleSupportIsAsked() {
        let movie = MovieFileOutput()
        #expect([0.0, 90, 180, 270].allSatisfy(movie.isVideoRotationAngleSupported))
        #expect(![45.0, -90, 360, .nan].contains(where: movie.isVideoRotationAngleSupported))
    }

    /// The documented way to consume events ends by itself when the output or session goes.
    @Test(.timeLimit(.minutes(1))) func eventStreamsFinishWhenTheirOwnerIsReleased() async {
        var movie: MovieFileOutput? = MovieFileOutput()
        var session: CaptureSession? = CaptureSession()
        let movieEvents = movie!.events, sessionEvents = session!.events
        let movieTask = Task { var count = 0; for await _ in movieEvents { count += 1 }; return count }
        let sessionTask = Task { var count = 0; for await _ in sessionEvents { count += 1 }; return count }
        movie = nil
        session = nil
        #expect(await movieTask.value == 0)
        #expect(await sessionTask.value == 0)
    }
}

/// A file-like source waits for an output to consume media; a photo request is one, and wakes it.
@Suite(.serialized) struct NonLiveSourcePhotoTests {
    @Test(.timeLimit(.minutes(1))) func aPhotoFromASourceThatWaitsForAConsumer() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let session = CaptureSession()
        let photo = PhotoOutput()
        let video = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30), realTime: false)
        try await session.configure { config in
            try config.addInput(video)
            try config.addOutput(photo)
        }
        try await session.startRunning()
        let result = try await photo.capturePhoto(to: dir.file("still.jpg"))
        await session.stopRunning()
        #expect(result.width == 160 && result.height == 120, "\(result)")
    }

    /// An unfinished fragmented recording is refused by the orientation editor: its header is
    /// under the recording's checksum, which repair checks, so editing it would make it
    /// unrepairable.
    @Test func rotatingAnUnfinishedRecordingAsksForRepairFirst() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        var configuration = MovieWriter.Configuration(creationTime: QuickTimeTimestamp(unixSeconds: 1_767_225_600), metadata: [])
        configuration.fragmentInterval = .seconds(1)
        configuration.checksumsFragments = true
        let sink = InMemoryMovieSink()
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let stream = try AnnexBStream(annexB: [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("testsrc-ipp.264")))))
        let track = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600))
        for (n, unit) in stream.accessUnits.enumerated() {
            try writer.appendVideoSample(unit.lengthPrefixed, to: track, decodeTime: Int64(n) * 20,
                                         presentationTime: Int64(n) * 20, isSync: unit.isSync)
        }
        // No finish: cut off.
        let path = dir.file("cut.mov")
        try Data(sink.bytes).write(to: URL(fileURLWithPath: path))
        let rotate = try run(try movrecPath(), ["rotate", path, "--angle", "90"])
        #expect(rotate.status == 1)
        #expect(rotate.error.contains("finish it with `movrec repair` first"), "\(rotate.error)")
        let repair = try run(try movrecPath(), ["repair", path])
        #expect(repair.status == 0, "the file is untouched, so it still repairs: \(repair.error)")
    }
}
