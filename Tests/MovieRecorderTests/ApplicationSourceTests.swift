import Foundation
import Synchronization
import Testing
@testable import MovieContainer
@testable import MovieCapture
@testable import MovieRecorder

/// An application's own video source, the seam AVCam's `Camera` protocol is: frames it makes
/// from its own bytes record like a camera's.
@Suite(.serialized) struct ApplicationSourceTests {
    /// Delivers `count` grey pictures getting brighter, then ends; on a thread of its own.
    final class GradientSource: VideoSource {
        let name = "gradient"
        let format = VideoFormat(width: 64, height: 64, pixelFormat: .i420, frameRate: FrameRate(frames: 30))
        let isLive = false
        let count: Int
        private let running = DispatchGroup()
        private let stopRequested = Atomic<Bool>(false)

        init(count: Int) { self.count = count }

        func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {
            stopRequested.store(false, ordering: .relaxed)
            running.enter()
            let (count, format, start) = (count, format, MonotonicClock.now())
            Thread.detachNewThread { [self] in
                defer { running.leave() }
                for n in 0..<count where !stopRequested.load(ordering: .relaxed) {
                    let size = format.pixelFormat.byteCount(width: format.width, height: format.height)
                    var bytes = [UInt8](repeating: 128, count: size)
                    for i in 0..<(format.width * format.height) { bytes[i] = UInt8(n * 4 % 256) }
                    let frame = try! VideoFrame(copying: bytes, width: format.width, height: format.height,
                                                pixelFormat: .i420, timestamp: start + UInt64(n) * 33_333_333, sequenceNumber: UInt64(n))
                    handler(.frame(frame))
                }
                handler(.ended)
            }
        }

        func stop() {
            stopRequested.store(true, ordering: .relaxed)
            running.wait()
        }
    }

    @Test func framesFromBytesKeepTheirPixels() throws {
        var bytes = [UInt8](repeating: 0, count: PixelFormat.i420.byteCount(width: 4, height: 2))
        for i in bytes.indices { bytes[i] = UInt8(i) }
        let frame = try VideoFrame(copying: bytes, width: 4, height: 2, pixelFormat: .i420, timestamp: 7, sequenceNumber: 3)
        #expect(frame.packedBytes() == bytes)
        #expect(frame.planes.map(\.bytesPerRow) == [4, 2, 2])
        #expect(throws: SourceError.self) {
            try VideoFrame(copying: [1, 2, 3], width: 4, height: 2, pixelFormat: .i420, timestamp: 0, sequenceNumber: 0)
        }
    }

    @Test func anApplicationsSourceRecordsLikeACamera() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let session = CaptureSession()
        let movie = MovieFileOutput()
        let source = GradientSource(count: 45)
        try await session.configure { config in
            try config.addInput(source)
            try config.addOutput(movie)
        }
        try await session.startRunning()
        try await movie.startRecording(to: dir.file("gradient.mov"))
        var result: RecordingResult?
        for await event in movie.events {
            if case .didFinishRecording(let finished) = event {
                result = finished
                break
            }
        }
        await session.stopRunning()
        let recorded = try #require(result)
        #expect(recorded.isPlayable)
        #expect(recorded.frameCount == 45, "\(recorded)")
        let decoded = try decodeAllFrames(recorded.path)
        #expect(decoded.videoFrames == 45 && decoded.errors.isEmpty, "\(decoded)")
    }
}
