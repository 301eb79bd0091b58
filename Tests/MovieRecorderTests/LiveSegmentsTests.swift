import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

extension LiveViewTestGroup {
    /// The live stream as the application takes it, `AVAssetWriter`'s way: an initialization
    /// segment, then parts with reports, which concatenated are a stream ffprobe reads. The stream
    /// keeps only the newest 32 pieces for a reader that falls behind, so the test reads it on a
    /// thread of its own, which the busy cooperative pool of a parallel run cannot leave waiting.
    @Suite struct LiveSegmentsTests {
        @Test func theApplicationTakesInitializationAndPartsWithReports() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let live = LiveStreamOutput()
            let session = CaptureSession()
            try await session.configure { config in
                try config.addInput(TestPatternSource(width: 320, height: 180, frameRate: FrameRate(frames: 30)))
                try config.addInput(ToneSource())
                try config.addOutput(live)
            }
            try live.setVideoRotationAngle(180)
            let executor = DedicatedThreadExecutor(name: "test-pieces")
            let collector = Task(executorPreference: executor) {
                var pieces: [LiveSegment] = []
                for await piece in live.segments {
                    pieces.append(piece)
                    if pieces.count >= 12 { break }
                }
                executor.finish()
                return pieces
            }
            try await session.startRunning()
            let pieces = await collector.value
            await session.stopRunning()
            #expect(pieces.first?.kind == .initialization && pieces.first?.report == nil)
            let parts = pieces.dropFirst()
            #expect(parts.allSatisfy { $0.kind == .part && $0.report != nil })
            let reports = parts.compactMap(\.report)
            #expect(reports.first?.partIndex == 0 && reports.first?.isIndependent == true && reports.first?.segmentSequenceNumber == 0)
            #expect(reports.map(\.partIndex) == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0], "\(reports.map(\.partIndex))")
            #expect(reports.allSatisfy { $0.orientation.rotationAngle == 180 && $0.duration == .milliseconds(200) })
            for (a, b) in zip(reports, reports.dropFirst()) {
                #expect(b.earliestPresentationTime == a.earliestPresentationTime + a.duration)
                #expect(b.captureTime > a.captureTime)
            }
            let stream = directory.file("stream.mp4")
            #expect(FileManager.default.createFile(atPath: stream, contents: Data(pieces.flatMap(\.data))))
            let probe = try run("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=codec_name,nb_read_packets:stream_side_data=rotation",
                                            "-of", "csv=p=0", stream])
            #expect(probe.error.isEmpty && probe.output.contains("h264,66") && probe.output.contains("aac"), "\(probe.output) \(probe.error)")
            #expect(probe.output.contains("180"), "the initialization segment's matrix holds the angle: \(probe.output)")
        }
    }
}

extension LiveViewTestGroup.LiveSegmentsTests {
    /// An encoder that cannot open (an unknown preset) leaves a typed error naming the step; the
    /// session and a recording beside it go on.
    @Test func aStreamThatCannotOpenSaysWhyAndTheRecordingGoesOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var settings = LiveStreamSettings()
        settings.preset = "warp-speed"
        let live = LiveStreamOutput(settings: settings)
        let movie = MovieFileOutput()
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 320, height: 180, frameRate: FrameRate(frames: 30)))
            try config.addOutput(live)
            try config.addOutput(movie)
        }
        try await session.startRunning()
        try await movie.startRecording(to: directory.file("clip.mov"))
        // The stream's failure reported, and a second of the recording written beside it.
        #expect(await eventually { live.lastError != nil }, "the stream reported nothing")
        #expect(await eventually { movie.recordedDuration >= .seconds(1) }, "\(movie.recordedDuration) recorded")
        let result = await movie.stopRecording()
        await session.stopRunning()
        let error = try #require(live.lastError)
        #expect(error.code == .invalidSettings && error.message.contains("warp-speed") && error.message.contains("LiveStreamOutput"), "\(error)")
        #expect(!live.isStreaming && live.streamedFrameCount == 0)
        #expect(result?.isPlayable == true && (result?.frameCount ?? 0) > 20)
    }
}
