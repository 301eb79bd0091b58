import Foundation
import Synchronization
import Testing
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieContainer

/// libx264's own messages go through the library's logging, never straight to standard error.
@Suite(.serialized) struct LoggingTests {
    @Test func x264MessagesReachTheInstalledHandler() throws {
        let received = LockedValue<[LogMessage]>([])
        MovieRecorderLogging.bootstrap(minimumLevel: .info) { message in received.withLock { $0.append(message) } }
        defer { MovieRecorderLogging.shutdown() }
        let format = VideoFormat(width: 320, height: 240, pixelFormat: .i420, frameRate: FrameRate(frames: 30))
        let encoder = try H264Encoder(format: format, timescale: 600, settings: VideoEncoderSettings())
        encoder.close()
        let messages = received.withLock { $0 }.filter { $0.component == "x264" }
        // Opening an encoder, x264 says at info level which profile and level it chose.
        #expect(messages.contains { $0.level == .info && $0.text.contains("profile High") }, "\(messages)")
        #expect(messages.allSatisfy { !$0.text.hasSuffix("\n") }, "one line each, no newline")
    }

    @Test func withoutAHandlerNothingIsPassedOn() {
        MovieRecorderLogging.shutdown()
        #expect(MovieRecorderLogging.minimumLevel == nil)
        MovieRecorderLogging.bootstrap(minimumLevel: .warning) { _ in }
        #expect(MovieRecorderLogging.minimumLevel == .warning)
        MovieRecorderLogging.shutdown()
        #expect(MovieRecorderLogging.minimumLevel == nil)
    }

    /// An unknown preset is refused in the library's words; x264's own line is not printed.
    @Test func anUnknownPresetIsReportedOnceInTheLibrarysWords() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let result = try run(movrecPath(), ["record", dir.file("x.mov"), "--video", "testsrc", "--preset", "warp9", "--quiet"])
        #expect(result.status == 1)
        #expect(result.error.contains("preset 'warp9' is not known to x264"), "\(result.error)")
        #expect(!result.error.contains("x264 ["), "x264 printed its own line: \(result.error)")
        let tune = try run(movrecPath(), ["record", dir.file("y.mov"), "--video", "testsrc", "--tune", "zerolatency,bogus", "--quiet"])
        #expect(tune.status == 1)
        #expect(!tune.error.contains("x264 ["), "\(tune.error)")
        let profile = try run(movrecPath(), ["record", dir.file("z.mov"), "--video", "testsrc", "--profile", "ultra", "--quiet"])
        #expect(profile.status == 1)
        #expect(profile.error.contains("profile 'ultra'") && !profile.error.contains("x264 ["), "\(profile.error)")
    }
}
