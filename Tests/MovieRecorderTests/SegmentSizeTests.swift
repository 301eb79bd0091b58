import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

extension RealTimeMetadataTestGroup {
    /// Segments by size from a live camera stay within 10% of the size on an idle machine and on
    /// one kept busy by two spinning processes: the switch follows the bytes encoded, not the
    /// bytes on the disk.
    @Suite(.serialized) struct SegmentSizeTests {
        /// Two processes that spin on the CPU until terminated.
        final class Load {
            private var spinners: [Process] = []

            init(busy: Bool) throws {
                guard busy else { return }
                for _ in 0..<2 {
                    let spinner = Process()
                    spinner.executableURL = URL(fileURLWithPath: "/bin/sh")
                    spinner.arguments = ["-c", "while :; do :; done"]
                    try spinner.run()
                    spinners.append(spinner)
                }
            }

            /// SIGKILL: a child inherits the test thread's blocked signals, SIGTERM among them.
            func stop() {
                for spinner in spinners where spinner.isRunning {
                    kill(spinner.processIdentifier, SIGKILL)
                    spinner.waitUntilExit()
                }
            }
        }

        @Test(arguments: [(320, 180, 120_000, false), (320, 180, 120_000, true),
                          (1280, 720, 1_000_000, false), (1280, 720, 1_000_000, true)])
        func filesStayWithinTenPercentOfTheSize(width: Int, height: Int, size: Int, busy: Bool) async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let camera = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30))
            let tone = try ToneSource()
            let movie = MovieFileOutput()
            movie.segmentFileSize = UInt64(size)
            let session = CaptureSession()
            try await session.configure { config in
                try config.addInput(camera)
                try config.addInput(tone)
                try config.addOutput(movie)
            }
            let finished = Task { [events = movie.events] in
                var results: [RecordingResult] = []
                for await event in events {
                    if case .didFinishSegment(let result) = event { results.append(result) }
                    if case .didFinishRecording = event { break }
                }
                return results
            }
            try await session.startRunning()
            let load = try Load(busy: busy)
            defer { load.stop() }
            try await movie.startRecording(toSegments: try SegmentFileNames(pattern: dir.file("part-%02d.mov")))
            try await Task.sleep(for: .seconds(10))
            _ = await movie.stopRecording()
            load.stop()
            await session.stopRunning()
            let files = await finished.value
            #expect(files.count >= 2, "\(files.count) files switched by size in 10 s")
            let ratios = files.map { Double($0.fileSize) / Double(size) }
            #expect(ratios.allSatisfy { $0 >= 0.9 && $0 <= 1.1 },
                    "\(width)x\(height) at \(size) bytes, \(busy ? "busy" : "idle"): sizes \(files.map(\.fileSize)) (\(ratios.map { String(format: "%.3f", $0) }))")
            #expect(files.allSatisfy { $0.isPlayable && $0.droppedFrameCount == 0 || busy }, "\(files)")
        }
    }
}
