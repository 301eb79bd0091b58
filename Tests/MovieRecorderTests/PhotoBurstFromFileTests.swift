import Foundation
import Testing
@testable import MovieCapture
@testable import MovieRecorder

/// Photos from a file source: a file has no moment of capture, so each photo takes the next frame
/// read, in request order, and none is skipped. Each frame of the file has its own brightness,
/// so the photos' decoded pixels say which frame each one took.
@Suite(.serialized) struct PhotoBurstFromFileTests {
    static let frameCount = 30

    /// The luma of frame `index`: 16, 23, 30, … apart by more than JPEG's error.
    static func luma(of index: Int) -> UInt8 { UInt8(16 + 7 * index) }

    /// A 64x48 4:2:0 Y4M file of ``frameCount`` flat grey frames, each a different brightness.
    func writeNumberedFrames(to path: String) throws {
        let (width, height) = (64, 48)
        var file = Array("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n".utf8)
        for index in 0..<Self.frameCount {
            file += Array("FRAME\n".utf8)
            file += [UInt8](repeating: Self.luma(of: index), count: width * height)
            file += [UInt8](repeating: 128, count: width * height / 2)
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    /// The frame a photo shows, from the mean luma ffmpeg decodes from it.
    func frameShown(in path: String) throws -> Int {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        try #require(result.status == 0, "ffmpeg could not decode \(path): \(result.error)")
        let pixels = [UInt8](result.outputData)
        try #require(!pixels.isEmpty, "ffmpeg decoded no pixels from \(path)")
        let mean = Double(pixels.reduce(0) { $0 + Int($1) }) / Double(pixels.count)
        return Int(((mean - 16) / 7).rounded())
    }

    /// Requests the photos as fast as a readiness coordinator allows (responsive: up to four
    /// encoded together) or one after another, and checks photo i took frame i, by its number
    /// and by its pixels.
    @Test(arguments: [true, false])
    func aBurstTakesEveryFrameOfTheFileInOrder(responsive: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let input = directory.file("numbered.y4m")
        try writeNumberedFrames(to: input)
        let output = PhotoOutput()
        output.isResponsiveCaptureEnabled = responsive
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(try Y4MFileSource(path: input))
            try config.addOutput(output)
        }
        try await session.startRunning()
        var results: [PhotoResult] = []
        do {
            if responsive {
                // As a shutter button does: each photo as soon as the coordinator says ready (the
                // frame before it chosen and a slot free), several encoded at once.
                let coordinator = PhotoOutputReadinessCoordinator(photoOutput: output)
                var updates = coordinator.readinessUpdates.makeAsyncIterator()
                while await updates.next() != .ready {}
                var captures: [Task<PhotoResult, any Error>] = []
                for index in 0..<Self.frameCount {
                    let settings = PhotoSettings()
                    coordinator.startTrackingCaptureRequest(using: settings)
                    captures.append(Task { try await output.capturePhoto(to: directory.file("photo-\(index).jpg"), settings: settings) })
                    while await updates.next() != .ready {}
                }
                for capture in captures { results.append(try await capture.value) }
            } else {
                for index in 0..<Self.frameCount {
                    results.append(try await output.capturePhoto(to: directory.file("photo-\(index).jpg")))
                }
            }
        } catch {
            await session.stopRunning()
            throw error
        }
        await output.finishProcessing()
        await session.stopRunning()
        #expect(results.map(\.frameSequenceNumber) == (0..<Self.frameCount).map(UInt64.init))
        let shown = try (0..<Self.frameCount).map { try frameShown(in: directory.file("photo-\($0).jpg")) }
        #expect(shown == Array(0..<Self.frameCount))
    }
}
