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
        try await Task.sleep(for: .milliseconds(300))
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
        try await Task.sleep(for: .milliseconds(300))
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
