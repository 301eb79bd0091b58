import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder
extension LiveViewTestGroup {
    /// The live view in a real browser: headless Chromium plays the preview page while a movie
    /// records, turned level at every orientation.
    @Suite struct LiveViewTests {
        /// The page plays the stream (the pattern's frame number, read from the page's pixels,
        /// advances), measures its latency from `prft`, and the movie recorded meanwhile keeps every
        /// frame and its rotation in the matrix.
        @Test func thePreviewPagePlaysWhileAMovieRecords() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let movie = MovieFileOutput()
            let live = try await LiveSession.start(extra: [movie])
            try movie.setVideoRotationAngle(90)
            try live.live.setVideoRotationAngle(90)
            try await movie.startRecording(to: directory.file("clip.mov"))
            let report = try browse(live.base + "/", ["--wait", "window.liveView && liveView.frames > 20", "--timeout", "20",
                                                      "--sample", pictureScript, "--every", "1", "--count", "2",
                                                      "--eval", "JSON.stringify(liveView)"])
            let result = await movie.stopRecording()
            await live.stop()
            #expect(report.waited && report.error == nil, "\(report.error ?? "the page showed no frames")")
            let renderer = TestPatternRenderer(width: 640, height: 360, pixelFormat: .i420)
            let numbers = report.samples.map { counter(inPicture: $0, renderer: renderer) }
            #expect(numbers.count == 2 && numbers.allSatisfy { $0 != nil }, "the frame numbers could not be read: \(numbers)")
            if numbers.count == 2, let first = numbers[0], let second = numbers[1] {
                #expect((20...40).contains(second - first), "a second apart the page showed frames \(first) and \(second)")
            }
            let state = (report.values.first as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(state?["angle"] as? Int == 90 && state?["width"] as? Int == 640 && state?["height"] as? Int == 360, "\(state ?? [:])")
            let latencies = state?["latencies"] as? [Double] ?? []
            #expect(!latencies.isEmpty && latencies.allSatisfy { $0 > 0 && $0 < 3000 }, "latencies measured from prft: \(latencies.prefix(10))")
            let recorded = try #require(result)
            #expect(recorded.isPlayable && recorded.droppedFrameCount == 0, "\(recorded)")
            let streams = try ffprobeStreams(directory.file("clip.mov"))
            #expect(streams.first { $0.codec_type == "video" }?.rotation == -90, "the movie's matrix holds the capture angle")
            #expect(Int(streams.first { $0.codec_type == "video" }?.nb_frames ?? "") == recorded.frameCount)
            // The live view may leave pictures out while Chromium starts beside two encoders; the
            // recording may not.
            #expect(live.live.droppedFrameCount * 10 < live.live.streamedFrameCount, "\(live.live.droppedFrameCount) of \(live.live.streamedFrameCount)")
        }

        /// All eight orientations, the angle turned through the rotation coordinator as the device
        /// turns and the mirroring set on the output: the page shows the pattern's red and green
        /// corners where that orientation puts them, at the picture's aspect ratio, within a second
        /// of the turn.
        @Test func thePageTurnsLevelAtEveryOrientation() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let gravity = ManualGravitySource()
            let service = CaptureService()
            let observer = RotationObserver(gravitySource: gravity)
            let output = LiveStreamOutput()
            try await service.session.configure { config in
                try config.addInput(TestPatternSource(width: 640, height: 360, frameRate: FrameRate(frames: 30)))
            }
            try await service.addOutput(output)
            await service.observeRotation(of: observer)
            try observer.setCamera(TestPatternSource(width: 640, height: 360, frameRate: FrameRate(frames: 30)),
                                   mounting: CameraMounting(position: .back))
            let server = try LiveViewServer(output: output, port: 0)
            try await service.session.startRunning()
            let steps = directory.file("step")
            let orientations = [(0, false), (90, false), (180, false), (270, false), (270, true), (180, true), (90, true), (0, true)]
            let browser = Task.detached {
                try browse("http://127.0.0.1:\(server.port)/", ["--size", "800x600", "--wait", "window.liveView && liveView.frames > 10",
                                                                 "--timeout", "20", "--steps", String(orientations.count), "--step-file", steps])
            }
            var failures: [String] = []
            for (i, (angle, mirrored)) in orientations.enumerated() {
                gravity.setRotation(clockwiseDegrees: angle)
                output.setVideoMirrored(mirrored)
                let turned = Date().timeIntervalSince1970 * 1000
                let condition = "liveView.angle === \(angle) && liveView.mirrored === \(mirrored) && liveView.framesSinceTurn > 5"
                    + " && (document.getElementById('info').hidden = document.getElementById('sound').hidden = true)"
                try condition.write(toFile: "\(steps).\(i)", atomically: true, encoding: .utf8)
                guard let done = await waitForFile("\(steps).\(i).done", seconds: 20),
                      let state = try JSONSerialization.jsonObject(with: done) as? [String: Any] else {
                    failures.append("orientation \(angle)\(mirrored ? " mirrored" : ""): the page never showed it")
                    break
                }
                if i > 0, let at = state["turnedAt"] as? Double, at - turned > 1000 {
                    failures.append("orientation \(angle)\(mirrored ? " mirrored" : ""): the page turned \(Int(at - turned)) ms after the device")
                }
                failures += try Self.checkCorners("\(steps).\(i).png", angle: angle, mirrored: mirrored)
            }
            let report = try await browser.value
            await server.stop()
            await service.session.stopRunning()
            await service.stopObservingRotation()
            #expect(report.error == nil, "\(report.error ?? "")")
            #expect(failures.isEmpty, "\(failures)")
        }

        /// Where the red and green corner blocks of a 640x360 picture land on an 800x600 page at an
        /// orientation, against where the screenshot has them; and the picture's aspect ratio.
        static func checkCorners(_ path: String, angle: Int, mirrored: Bool) throws -> [String] {
            let image = try rgbPixels(ofPNG: path)
            let renderer = TestPatternRenderer(width: 640, height: 360, pixelFormat: .i420)
            let (w, h) = (640.0, 360.0)
            let sideways = angle % 180 != 0
            let (boxW, boxH) = sideways ? (h, w) : (w, h)
            let scale = min(Double(image.width) / boxW, Double(image.height) / boxH)
            func place(_ x: Double, _ y: Double) -> (Double, Double) {
                var (px, py) = (x, y)
                switch angle {
                case 90: (px, py) = (h - y, x)
                case 180: (px, py) = (w - x, h - y)
                case 270: (px, py) = (y, w - x)
                default: break
                }
                if mirrored { px = boxW - px }
                return ((Double(image.width) - boxW * scale) / 2 + px * scale, (Double(image.height) - boxH * scale) / 2 + py * scale)
            }
            var failures: [String] = []
            let name = "\(angle)\(mirrored ? " mirrored" : "")"
            for (colour, marker, test) in [("red", renderer.redMarker, isRed), ("green", renderer.greenMarker, isGreen)] as [(String, TestPatternRenderer.Rectangle, ((r: Int, g: Int, b: Int)) -> Bool)] {
                let expected = place(Double(marker.x) + Double(marker.width) / 2, Double(marker.y) + Double(marker.height) / 2)
                let found = centroid(image, test)
                let area = Double(marker.width * marker.height) * scale * scale
                if abs(found.x - expected.0) > 12 || abs(found.y - expected.1) > 12 || abs(Double(found.count) - area) > 0.15 * area {
                    failures.append("\(name): \(colour) at (\(Int(found.x)), \(Int(found.y))), \(found.count) px; expected (\(Int(expected.0)), \(Int(expected.1))), \(Int(area)) px")
                }
            }
            return failures
        }

        /// Waits (bounded) for a file another process writes, and reads it.
        func waitForFile(_ path: String, seconds: Double) async -> Data? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let data = FileManager.default.contents(atPath: path) { return data }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }
}
