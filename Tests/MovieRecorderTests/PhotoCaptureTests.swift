import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// Zero shutter lag, overlapping captures, readiness, deferred delivery and prioritization, with
/// the test pattern's drawn frame number read back from the photos.
@Suite(.serialized) struct PhotoCaptureTests {
    // MARK: Choosing the frame

    @Test func theNearestFrameIsChosenAndNeverALaterOneWithinHalfAnInterval() {
        let frames: [UInt64] = [0, 200, 400, 600]
        #expect(ZeroShutterLagChoice.interval(of: frames) == 200)
        #expect(ZeroShutterLagChoice.choose(timestamps: frames, at: 450, interval: 200) == .chosen(2))
        #expect(ZeroShutterLagChoice.choose(timestamps: frames, at: 500, interval: 200) == .chosen(2), "a tie takes the earlier frame")
        #expect(ZeroShutterLagChoice.choose(timestamps: frames, at: 560, interval: 200) == .chosen(3))
        #expect(ZeroShutterLagChoice.choose(timestamps: frames, at: 600, interval: 200) == .chosen(3))
        // Newest frame 90 back: within half an interval, so no waiting for the next.
        #expect(ZeroShutterLagChoice.choose(timestamps: frames, at: 690, interval: 200) == .chosen(3))
        // 150 back: the next frame, 50 ahead, may be closer.
        #expect(ZeroShutterLagChoice.choose(timestamps: frames, at: 750, interval: 200) == .waitForNextFrame)
        // Uneven frames: an earlier one within half an interval wins over a closer later one.
        #expect(ZeroShutterLagChoice.choose(timestamps: [0, 200, 290], at: 285, interval: 200) == .chosen(1))
        #expect(ZeroShutterLagChoice.choose(timestamps: [100, 300], at: 240, interval: 200) == .chosen(1))
        #expect(ZeroShutterLagChoice.choose(timestamps: [100, 300], at: 140, interval: 200) == .chosen(0))
        // A request older than every kept frame takes the oldest.
        #expect(ZeroShutterLagChoice.choose(timestamps: [500, 700], at: 100, interval: 200) == .chosen(0))
        #expect(ZeroShutterLagChoice.choose(timestamps: [], at: 100, interval: nil) == .waitForNextFrame)
        #expect(ZeroShutterLagChoice.choose(timestamps: [50], at: 100, interval: nil) == .waitForNextFrame)
    }

    @Test func readinessFollowsTheDocumentedPrecedence() {
        typealias R = PhotoOutput.CaptureReadiness
        #expect(PhotoOutput.readiness(connected: false, tracked: [.waitingForFrame], inFlight: 0, limit: 1) == R.sessionNotRunning)
        #expect(PhotoOutput.readiness(connected: true, tracked: [PhotoOutput.TrackedPhase](), inFlight: 0, limit: 1) == R.ready)
        #expect(PhotoOutput.readiness(connected: true, tracked: [.announced, .waitingForFrame], inFlight: 1, limit: 1) == R.notReadyWaitingForCapture)
        #expect(PhotoOutput.readiness(connected: true, tracked: [.announced], inFlight: 1, limit: 1) == R.notReadyMomentarily)
        #expect(PhotoOutput.readiness(connected: true, tracked: [PhotoOutput.TrackedPhase](), inFlight: 1, limit: 1) == R.notReadyWaitingForProcessing)
        #expect(PhotoOutput.readiness(connected: true, tracked: [.waitingForSlot], inFlight: 0, limit: 4) == R.notReadyWaitingForProcessing)
        #expect(PhotoOutput.readiness(connected: true, tracked: [PhotoOutput.TrackedPhase](), inFlight: 3, limit: 4) == R.ready)
    }

    // MARK: Live captures

    /// Runs a live 320x240 test pattern at `fps` with `output`, stopping it whatever `body` throws.
    func withSession<T>(_ output: PhotoOutput, fps: UInt32 = 5, width: Int = 320, height: Int = 240,
                        _ body: () async throws -> T) async throws -> T {
        try await withTestPatternSession(output, width: width, height: height, fps: fps, body)
    }

    /// The frame number the test pattern drew into a photo, read after JPEG compression: each
    /// font cell is lit when its luma is above the middle.
    func drawnFrameNumber(_ path: String, width: Int = 320, height: Int = 240) throws -> Int? {
        let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        #expect(decoded.status == 0, "ffmpeg failed on \(path): \(decoded.error)")
        let luma = [UInt8](decoded.outputData)
        guard luma.count == width * height else { return nil }
        let renderer = TestPatternRenderer(width: width, height: height, pixelFormat: .i420)
        return readCounter(renderer: renderer) { x, y, lit in (luma[y * width + x] > 125) == lit }
    }

    func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    @Test func zeroShutterLagTakesTheFrameNearestTheRequestAndWithoutItTheNext() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        output.isResponsiveCaptureEnabled = true
        let interval = 200.0  // 5 fps
        var withLag: [Double] = [], withoutLag: [Double] = []
        try await withSession(output) {
            #expect(await eventually { output.ring.entries.count >= 2 }, "the ring holds no frames")
            for index in 0..<6 {
                // Three with zero shutter lag, then three without; requests at different phases
                // of the frame interval.
                if index == 3 { output.isZeroShutterLagEnabled = false }
                try await Task.sleep(for: .milliseconds(37 * index + 50))
                let path = dir.file("shot-\(index).jpg")
                let result = try await output.capturePhoto(to: path)
                let lag = milliseconds(result.shutterLag)
                #expect(try drawnFrameNumber(path) == Int(result.frameSequenceNumber), "the photo shows frame \(result.frameSequenceNumber)")
                if index < 3 {
                    withLag.append(lag)
                    #expect(result.isZeroShutterLag)
                    #expect(abs(lag) <= interval / 2 + 1, "zero shutter lag took a frame \(lag) ms from the request")
                } else {
                    withoutLag.append(lag)
                    #expect(!result.isZeroShutterLag)
                    #expect(lag > 0 && lag <= interval + 50, "without zero shutter lag the next frame came \(lag) ms after the request")
                }
            }
        }
        print("shutter lag at 5 fps: with zero shutter lag \(withLag.map { Int($0) }) ms, without \(withoutLag.map { Int($0) }) ms")
    }

    @Test func overlappingCapturesReturnAndReportInRequestOrder() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        output.isResponsiveCaptureEnabled = true
        output.responsiveCaptureLimit = 4
        let events = Task { () -> [Int64] in
            var order: [Int64] = []
            for await event in output.events {
                if case .didCapturePhoto(let result) = event { order.append(result.uniqueID) }
                if order.count == 6 { break }
            }
            return order
        }
        // A slow HEIF first, then quick JPEGs that would finish before it.
        let settings = (0..<6).map { index in
            PhotoSettings(codec: index % 3 == 0 ? .hevc : .jpeg, qualityPrioritization: index % 3 == 0 ? .quality : .speed)
        }
        let returned = LockedValue<[Int64]>([])
        try await withSession(output, width: 640, height: 480) {
            try await Task.sleep(for: .milliseconds(500))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, photo) in settings.enumerated() {
                    group.addTask {
                        let result = try await output.capturePhoto(to: dir.file("burst-\(index).\(photo.codec == .hevc ? "heic" : "jpg")"), settings: photo)
                        returned.withLock { $0.append(result.uniqueID) }
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await group.waitForAll()
            }
            await output.finishProcessing()
        }
        let requested = settings.map(\.uniqueID)
        #expect(await events.value == requested, "events in request order")
        // Each call is resumed after the one before it; which resumed task runs first is the
        // scheduler's choice, so only the set is checked here and the order through the events.
        #expect(Set(returned.withLock { $0 }) == Set(requested))
        #expect(output.maximumPhotosInFlight == 4)
    }

    /// Calls made together without responsive capture queue for the one slot and all finish:
    /// the order of the results is the order of admission, so none waits for a later one.
    @Test(.timeLimit(.minutes(1))) func concurrentCallsQueueForTheirTurnAndAllFinish() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        let count = try await withSession(output) {
            try await Task.sleep(for: .milliseconds(300))
            return try await withThrowingTaskGroup(of: PhotoResult.self) { group in
                for index in 0..<6 {
                    group.addTask { try await output.capturePhoto(to: dir.file("together-\(index).jpg")) }
                }
                return try await group.reduce(0) { count, _ in count + 1 }
            }
        }
        #expect(count == 6)
        await output.finishProcessing()
    }

    @Test(.timeLimit(.minutes(1))) func aCallCancelledWhileWaitingForASlotEndsAtOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        try await withSession(output, width: 1280, height: 720) {
            try await Task.sleep(for: .milliseconds(300))
            // x265's slow preset at 720p keeps the one slot for a while.
            let slowDone = LockedValue(false)
            let slow = Task {
                defer { slowDone.withLock { $0 = true } }
                return try await output.capturePhoto(to: dir.file("slow.heic"), settings: PhotoSettings(codec: .hevc, qualityPrioritization: .quality))
            }
            // The next call once the slow one holds the slot, so the next waits for it.
            #expect(await eventually { output.state.withLock { $0.slots.inFlight } == 1 }, "the slow photo never took the slot")
            let waiting = Task { try await output.capturePhoto(to: dir.file("waiting.jpg")) }
            // Likely queued by now; cancelled before it queues, it ends the same way.
            try await Task.sleep(for: .milliseconds(50))
            #expect(output.maximumPhotosInFlight == 1)
            waiting.cancel()
            await #expect(throws: CancellationError.self) { _ = try await waiting.value }
            #expect(!slowDone.withLock { $0 }, "the cancelled call waited for the photo in flight")
            let first = try await slow.value
            #expect(first.byteCount > 0)
        }
        await output.finishProcessing()
        #expect(!FileManager.default.fileExists(atPath: dir.file("waiting.jpg")))
    }

    @Test func readinessOfTrackedPhotosComesInTheDocumentedSequence() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        output.isZeroShutterLagEnabled = false
        var coordinator: PhotoOutputReadinessCoordinator? = PhotoOutputReadinessCoordinator(photoOutput: output)
        #expect(coordinator?.captureReadiness == .sessionNotRunning)
        // The stream ends when the coordinator goes, at the end.
        let updates = try #require(coordinator?.readinessUpdates)
        let seen = Task { () -> [PhotoOutput.CaptureReadiness] in
            var seen: [PhotoOutput.CaptureReadiness] = []
            for await readiness in updates { seen.append(readiness) }
            return seen
        }
        try await withSession(output) {
            for index in 0..<2 {
                let settings = PhotoSettings()
                coordinator?.startTrackingCaptureRequest(using: settings)
                #expect(coordinator?.captureReadiness == .notReadyMomentarily)
                _ = try await output.capturePhoto(to: dir.file("tracked-\(index).jpg"), settings: settings)
                await output.finishProcessing()
            }
        }
        coordinator = nil
        let expected: [PhotoOutput.CaptureReadiness] = [.sessionNotRunning, .ready]
            + [.notReadyMomentarily, .notReadyWaitingForCapture, .notReadyWaitingForProcessing, .ready]
            + [.notReadyMomentarily, .notReadyWaitingForCapture, .notReadyWaitingForProcessing, .ready]
            + [.sessionNotRunning]
        #expect(await seen.value == expected)
    }

    @Test func deferredDeliveryReturnsAProxyThenReplacesIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        output.isAutoDeferredPhotoDeliveryEnabled = true
        try output.setVideoRotationAngle(90)
        let path = dir.file("deferred.jpg")
        let finals = Task { () -> PhotoResult? in
            for await event in output.events {
                if case .didFinishDeferredPhoto(let result) = event { return result }
            }
            return nil
        }
        let proxy = try await withSession(output, width: 1280, height: 720) {
            try await Task.sleep(for: .milliseconds(500))
            return try await output.capturePhoto(to: path)
        }
        #expect(proxy.isProxy && proxy.width == 640 && proxy.height == 360, "\(proxy)")
        await output.finishProcessing()
        let final = try #require(await finals.value)
        #expect(!final.isProxy && final.width == 1280 && final.height == 720 && final.frameSequenceNumber == proxy.frameSequenceNumber)
        let tags = try run("exiftool", ["-j", "-n", "-Orientation", "-ImageWidth", path])
        #expect(tags.status == 0)
        #expect(tags.output.contains("\"Orientation\": 6") && tags.output.contains("\"ImageWidth\": 1280"), "\(tags.output)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".movrec") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test func aKillBetweenProxyAndFinalLeavesAReadableProxy() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("killed.heic")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try movrecPath())
        process.arguments = ["photo", path, "--video", "testsrc", "--size", "1920x1080", "--rotation", "270",
                             "--deferred", "--prioritize", "quality", "--quality", "95"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The proxy's line comes first; the slow preset's final takes seconds more at 1080p.
        var text = ""
        while !text.contains("\n"), case let data = out.fileHandleForReading.availableData, !data.isEmpty {
            text += String(decoding: data, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "movrec ended by itself before the kill: \(text)")
        #expect(text.contains("proxy") && !text.contains("final:"), "the output is not the proxy's line alone: \(text)")
        let info = try run("heif-info", [path])
        #expect(info.status == 0, "heif-info cannot read the proxy: \(info.error)")
        #expect(info.output.contains("360x640"), "the proxy is not shown at 360x640 (640x360 turned): \(info.output)")
        let tags = try run("exiftool", ["-j", "-n", "-Rotation", "-Model", path])
        #expect(tags.output.contains("\"Rotation\": 90") && tags.output.contains("test pattern"), "\(tags.output)")
    }

    @Test func prioritizationChangesTheEncoderNotThePicture() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        var sizes: [PhotoQualityPrioritization: Int] = [:]
        try await withSession(output, width: 640, height: 480) {
            try await Task.sleep(for: .milliseconds(400))
            for choice in PhotoQualityPrioritization.allCases {
                let path = dir.file("\(choice).jpg")
                let result = try await output.capturePhoto(to: path, settings: PhotoSettings(quality: 95, qualityPrioritization: choice))
                #expect(result.qualityPrioritization == choice)
                let bytes = try RandomAccessFile.readAll(path)
                let markers = Set(jpegHeaderMarkers(bytes))
                // SOF0 is baseline; SOF2 is progressive, whose Huffman tables libjpeg fits to the picture.
                #expect(markers.contains(choice == .quality ? 0xC2 : 0xC0), "\(choice): markers \(markers.sorted())")
                sizes[choice] = bytes.count
            }
        }
        print("JPEG sizes at quality 95, 640x480: \(sizes.sorted { $0.key.rawValue < $1.key.rawValue })")
        #expect(sizes[.quality]! < sizes[.balanced]!, "fitted Huffman tables make a smaller file")
        #expect(sizes[.speed]! < sizes[.balanced]!, "speed caps the quality at 80")
    }

    @Test func fastCapturePrioritizationSpeedsUpABurst() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        output.isResponsiveCaptureEnabled = true
        output.isFastCapturePrioritizationEnabled = true
        let results = try await withSession(output, width: 640, height: 480) {
            try await Task.sleep(for: .milliseconds(400))
            return try await withThrowingTaskGroup(of: PhotoResult.self) { group in
                for index in 0..<3 {
                    let settings = PhotoSettings(codec: .hevc, qualityPrioritization: .quality)
                    group.addTask { try await output.capturePhoto(to: dir.file("fast-\(index).heic"), settings: settings) }
                    // The first is in flight (x265's slow preset) when the others are requested.
                    if index == 0 {
                        #expect(await eventually { output.state.withLock { $0.slots.inFlight } == 1 }, "the first photo never took a slot")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let prioritizations = results.sorted { $0.uniqueID < $1.uniqueID }.map(\.qualityPrioritization)
        #expect(prioritizations.first == .quality, "the first photo of the burst keeps its prioritization")
        #expect(prioritizations.dropFirst().contains(.speed), "photos taken while another is in flight are sped up: \(prioritizations)")
    }

    @Test func anEmbeddedThumbnailIsExtractedTheSameWayUp() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        try output.setVideoRotationAngle(180)
        output.setVideoMirrored(true)
        let path = dir.file("thumb.jpg")
        let result = try await withSession(output) {
            try await Task.sleep(for: .milliseconds(300))
            return try await output.capturePhoto(to: path, settings: PhotoSettings(embeddedThumbnailPhotoFormat: PhotoThumbnailFormat()))
        }
        #expect(result.thumbnailByteCount > 0)
        let extracted = try run("exiftool", ["-b", "-ThumbnailImage", path])
        #expect(extracted.outputData.count == result.thumbnailByteCount)
        let tags = try run("exiftool", ["-j", "-n", "-IFD0:Orientation", "-IFD1:Orientation", "-ThumbnailLength", path])
        #expect(tags.output.contains("\"ThumbnailLength\": \(result.thumbnailByteCount)"), "\(tags.output)")
        // IFD0 and IFD1 both say 4 (180° mirrored = flipped top to bottom).
        #expect(tags.output.components(separatedBy: "\"Orientation\": 4").count == 2 || tags.output.contains("\"IFD1:Orientation\": 4"), "\(tags.output)")
        let refused = await #expect(throws: PhotoError.self) {
            _ = try await output.capturePhoto(to: dir.file("x.heic"), settings: PhotoSettings(codec: .hevc, embeddedThumbnailPhotoFormat: PhotoThumbnailFormat()))
        }
        #expect(refused?.code == .encodingFailed && refused?.message.contains("JPEG photos only") == true)
    }

    @Test func photosWhileRecordingCostTheMovieNoFrame() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let photos = PhotoOutput()
        photos.isResponsiveCaptureEnabled = true
        let movie = MovieFileOutput()
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 640, height: 480, frameRate: FrameRate(frames: 30)))
            try config.addOutput(movie)
            try config.addOutput(photos)
        }
        try await session.startRunning()
        try await movie.startRecording(to: dir.file("movie.mov"))
        var taken: [PhotoResult] = []
        for index in 0..<8 {
            try await Task.sleep(for: .milliseconds(200))
            taken.append(try await photos.capturePhoto(to: dir.file("during-\(index).jpg")))
        }
        let result = try #require(await movie.stopRecording())
        await session.stopRunning()
        #expect(taken.count == 8 && taken.allSatisfy { $0.byteCount > 0 })
        #expect(result.isPlayable, "\(result)")
        print("photos while recording 640x480 at 30 fps: \(taken.count) photos, \(result.droppedFrameCount) frames dropped of \(result.frameCount)")
    }

    @Test func movrecTakesABurstWithThumbnails() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let result = try run(movrecPath(), ["photo", dir.file("burst.jpg"), "--video", "testsrc", "--size", "320x240",
                                            "--burst", "4", "--interval", "0.1", "--thumbnail", "--prioritize", "speed"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 4, "\(result.output)")
        for number in 1...4 {
            let path = dir.file("burst-00\(number).jpg")
            #expect(FileManager.default.fileExists(atPath: path), "no \(path)")
            #expect(try run("exiftool", ["-b", "-ThumbnailImage", path]).outputData.count > 500)
        }
        let frames = lines.compactMap { line in line.range(of: "frame ").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) } ?? nil }
        #expect(frames == frames.sorted() && Set(frames).count == 4, "four different frames in order: \(frames)")
        let refused = try run(movrecPath(), ["photo", dir.file("x.jpg"), "--video", "testsrc", "--prioritize", "fastest"])
        #expect(refused.status == 2 && refused.error.contains("--prioritize fastest"), "\(refused.error)")
    }

    @Test func movrecTakesPhotosWhileRecording() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let photos = dir.file("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let result = try run(movrecPath(), ["record", dir.file("movie.mov"), "--video", "testsrc", "--size", "320x240",
                                            "--duration", "2", "--photo-every", "0.5", "--photo-directory", photos])
        #expect(result.status == 0, "\(result.error)")
        let taken = try FileManager.default.contentsOfDirectory(atPath: photos).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(taken.count >= 3 && taken.first == "photo-0001.jpg", "\(taken)")
        #expect(result.output.contains("photos in \(photos)"), "\(result.output)")
    }
}
