import Foundation
import Synchronization
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The AVCam rotation design through the real types: coordinator, observer, capture service and
/// outputs, driven by a manual gravity source standing in for the accelerometer.
@Suite(.serialized) struct RotationServiceTests {
    static let back = CameraMounting(position: .back)

    /// A preview that records the angles applied to it.
    final class RecordingPreview: PreviewTarget {
        let angles = LockedValue<[Double]>([])
        let displayRotation: Int
        init(displayRotation: Int = 0) { self.displayRotation = displayRotation }
        func setPreviewRotationAngle(_ angle: Double) { angles.withLock { $0.append(angle) } }
    }

    func camera() throws -> TestPatternSource {
        try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
    }

    @Test func captureAngleFollowsMountingAndDeviceRotation() {
        let cases: [(CameraMounting, Int, Int)] = [
            (CameraMounting(position: .back), 90, 90),
            (CameraMounting(position: .back, sensorRotation: 90), 90, 180),
            (CameraMounting(position: .front, sensorRotation: 90), 0, 90),     // iPhone front camera, portrait
            (CameraMounting(position: .front, sensorRotation: 90), 270, 180),  // landscape right
            (CameraMounting(position: .external), 90, 0),                     // a webcam does not turn with the board
            (CameraMounting(position: .external, sensorRotation: 180, followsDeviceGravity: true), 90, 270),
        ]
        for (mounting, device, expected) in cases {
            #expect(RotationCoordinator.captureAngle(deviceRotation: device, mounting: mounting) == expected, "\(mounting), device \(device)")
        }
    }

    @Test func previewAngleAccountsForTheDisplayRotation() throws {
        let gravity = ManualGravitySource()
        gravity.setRotation(clockwiseDegrees: 90)
        let coordinator = try RotationCoordinator(camera: camera(), mounting: Self.back, gravitySource: gravity,
                                                  previewDisplayRotation: 90)
        defer { coordinator.invalidate() }
        #expect(coordinator.videoRotationAngleForHorizonLevelCapture == 90)
        #expect(coordinator.videoRotationAngleForHorizonLevelPreview == 0)
        gravity.setRotation(clockwiseDegrees: 180)
        #expect(coordinator.videoRotationAngleForHorizonLevelCapture == 180)
        #expect(coordinator.videoRotationAngleForHorizonLevelPreview == 90)
    }

    @Test func coordinatorDeliversChangesInOrderAsStreamAndCallback() async throws {
        let gravity = ManualGravitySource()
        let coordinator = try RotationCoordinator(camera: camera(), mounting: Self.back, gravitySource: gravity)
        let seen = LockedValue<[Double]>([])
        let observation = coordinator.observeCaptureAngle { angle in seen.withLock { $0.append(angle) } }
        var iterator = coordinator.captureAngleUpdates().makeAsyncIterator()
        #expect(await iterator.next() == 0, "the stream starts with the current angle")
        for degrees in [90, 180, 270, 0] { gravity.setRotation(clockwiseDegrees: degrees) }
        var streamed: [Double] = []
        for _ in 0..<4 { streamed.append(await iterator.next() ?? -1) }
        #expect(streamed == [90, 180, 270, 0])
        #expect(seen.withLock { $0 } == [90, 180, 270, 0])
        observation.cancel()
        gravity.setRotation(clockwiseDegrees: 90)
        #expect(seen.withLock { $0 }.count == 4, "no callback after cancel")
        coordinator.invalidate()
        #expect(await iterator.next() == 90)
        #expect(await iterator.next() == nil, "invalidate ends the stream")
    }

    @Test func initialAngleReachesOutputsBeforeAnyRotation() async throws {
        let gravity = ManualGravitySource()
        gravity.setRotation(clockwiseDegrees: 270)  // the device is already turned
        let service = CaptureService()
        let observer = RotationObserver(gravitySource: gravity)
        let movie = MovieFileOutput()
        let photo = VideoDataOutput()
        #expect(movie.videoRotationAngle == 0 && photo.videoRotationAngle == 0, "a new output starts at 0")
        try await service.addOutput(movie)
        try await service.addOutput(photo)
        await service.observeRotation(of: observer)
        let preview = RecordingPreview()
        try observer.setPreviewTarget(preview)
        try observer.setCamera(camera(), mounting: Self.back)
        #expect(preview.angles.withLock { $0 } == [270], "the preview is turned at once, synchronously")
        #expect(await eventually { movie.videoRotationAngle == 270 && photo.videoRotationAngle == 270 })
        #expect(await service.captureRotationAngle == 270)
        await service.stopObservingRotation()
    }

    @Test func aThousandRapidRotationsSettleOnTheFinalAngleEverywhere() async throws {
        let gravity = ManualGravitySource()
        let service = CaptureService()
        let observer = RotationObserver(gravitySource: gravity)
        let outputs: [any OutputService] = [MovieFileOutput(), VideoDataOutput(), MovieFileOutput()]
        for output in outputs { try await service.addOutput(output) }
        await service.observeRotation(of: observer)
        try observer.setCamera(camera(), mounting: Self.back)
        let angles = [0, 90, 180, 270]
        for i in 0..<1000 { gravity.setRotation(clockwiseDegrees: angles[(i * 7 + i / 3) % 4]) }
        gravity.setRotation(clockwiseDegrees: 180)
        #expect(await eventually { outputs.allSatisfy { $0.videoRotationAngle == 180 } })
        #expect(await service.captureRotationAngle == 180)
        await service.stopObservingRotation()
    }

    @Test func outputsAddedLaterOrSwappedWhileRunningStayInSync() async throws {
        let gravity = ManualGravitySource()
        let service = CaptureService()
        let observer = RotationObserver(gravitySource: gravity)
        try await service.session.addInput(camera())
        try await service.session.startRunning()
        await service.observeRotation(of: observer)
        try observer.setCamera(camera(), mounting: Self.back)
        gravity.setRotation(clockwiseDegrees: 90)
        #expect(await eventually { await service.captureRotationAngle == 90 })

        let movie = MovieFileOutput()
        try await service.addOutput(movie)
        #expect(movie.videoRotationAngle == 90, "an output added after angles arrived gets the current one")

        // Photo ↔ movie switching while the session runs.
        let frames = VideoDataOutput()
        try await service.removeOutput(movie)
        try await service.addOutput(frames)
        gravity.setRotation(clockwiseDegrees: 180)
        #expect(await eventually { frames.videoRotationAngle == 180 })
        try await service.addOutput(movie)
        #expect(movie.videoRotationAngle == 180)
        gravity.setRotation(clockwiseDegrees: 270)
        #expect(await eventually { movie.videoRotationAngle == 270 && frames.videoRotationAngle == 270 })
        await service.session.stopRunning()
        await service.stopObservingRotation()
    }

    @Test func switchingCamerasMakesANewCoordinatorAndSilencesTheOldOne() async throws {
        let gravity = ManualGravitySource()
        let observer = RotationObserver(gravitySource: gravity)
        let seen = LockedValue<[Double]>([])
        let consumer = Task {
            for await angle in observer.captureAngles { seen.withLock { $0.append(angle) } }
        }
        // The old camera's sensor needs 180° more than the new one's: its angles are odd ones out.
        // Each step waits for the angle it publishes (the stream keeps only the newest, so a
        // reader left behind would see the last alone).
        let oldCamera = try camera(), newCamera = try camera()
        try observer.setCamera(oldCamera, mounting: CameraMounting(position: .back, sensorRotation: 180))
        let oldCoordinator = try #require(observer.coordinator)
        gravity.setRotation(clockwiseDegrees: 90)  // old: 270
        #expect(await eventually { seen.withLock { $0.last } == 270 }, "\(seen.withLock { $0 })")
        let switchIndex = seen.withLock { $0.count }
        try observer.setCamera(newCamera, mounting: Self.back)
        let newCoordinator = try #require(observer.coordinator)
        #expect(newCoordinator !== oldCoordinator)
        // No reading comes between: the new camera's angle is published at once.
        #expect(await eventually { seen.withLock { $0.count } > switchIndex }, "nothing published after the switch")
        #expect(seen.withLock { Array($0.dropFirst(switchIndex)) } == [90], "the new camera's angle is published at once")
        for degrees in [0, 90, 180, 270, 90] {
            gravity.setRotation(clockwiseDegrees: degrees)
            #expect(await eventually { seen.withLock { $0.last } == Double(degrees) }, "\(degrees)°: \(seen.withLock { $0 })")
        }
        // A late reading for the old camera, then one for the new: only the new one's angle follows.
        let beforeLate = seen.withLock { $0.count }
        oldCoordinator.update(with: .upright(rotatedClockwise: 180))
        gravity.setRotation(clockwiseDegrees: 180)
        #expect(await eventually { seen.withLock { $0.last } == 180 }, "\(seen.withLock { $0 })")
        #expect(seen.withLock { Array($0.dropFirst(beforeLate)) } == [180], "a late reading for the old camera never publishes")
        #expect(oldCoordinator.videoRotationAngleForHorizonLevelCapture == 270, "the old coordinator no longer follows gravity")
        consumer.cancel()
    }

    @Test func releasingTheServiceEndsItsTask() async throws {
        let observer = RotationObserver(gravitySource: ManualGravitySource())
        let weakService = WeakBox<CaptureService>()
        do {
            let service = CaptureService()
            weakService.value = service
            await service.observeRotation(of: observer)
            #expect(await service.isObservingRotation)
        }
        #expect(await eventually { weakService.value == nil }, "nothing keeps the service alive")
        #expect(await eventually { observer.isConsumerEnded }, "its task ended and let go of the angle stream")
    }

    @Test func movieGetsItsMatrixFromGravity() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("gravity.mov")
        let gravity = ManualGravitySource()
        gravity.setRotation(clockwiseDegrees: 270)
        let service = CaptureService()
        let observer = RotationObserver(gravitySource: gravity)
        let source = try TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 10)
        try await service.session.addInput(source)
        let movie = MovieFileOutput()
        try await service.addOutput(movie)
        await service.observeRotation(of: observer)
        try observer.setCamera(source, mounting: Self.back)
        #expect(await eventually { movie.videoRotationAngle == 270 })
        try await service.session.startRunning()
        try await movie.startRecording(to: path)
        var result: RecordingResult?
        for await event in movie.events { if case .didFinishRecording(let r) = event { result = r; break } }
        await service.session.stopRunning()
        await service.stopObservingRotation()
        #expect(result?.orientation == (try VideoOrientation(rotationAngle: 270)))
        let video = try #require(try ffprobeStreams(path).first { $0.codec_type == "video" })
        #expect(video.rotation == 90, "ffprobe prints clockwise 270 as 90")
        let exif = try run("exiftool", ["-s3", "-n", "-Rotation", path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(exif == "270")
    }

    @Test func rotationDuringARecordingIsReportedButDoesNotChangeTheFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("turned.mov")
        let session = CaptureSession()
        let movie = MovieFileOutput()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)))
            try config.addOutput(movie)
        }
        try await session.startRunning()
        try movie.setVideoRotationAngle(90)
        try await movie.startRecording(to: path)
        // The turn once frames are written (a change before the first frame is no change during
        // the recording), and frames after it.
        #expect(await eventually { movie.recordedDuration > .zero }, "nothing recorded")
        try movie.setVideoRotationAngle(180)
        let atTurn = movie.recordedDuration
        #expect(await eventually { movie.recordedDuration >= atTurn + .milliseconds(300) }, "\(movie.recordedDuration) recorded")
        let result = try #require(await movie.stopRecording())
        await session.stopRunning()
        #expect(result.orientation == (try VideoOrientation(rotationAngle: 90)))
        #expect(result.rotationChanges.map(\.orientation) == [try VideoOrientation(rotationAngle: 180)])
        #expect(try MovieInfo(source: RandomAccessFile(path: path, mode: .read)).videoTrack?.orientation
                == (try VideoOrientation(rotationAngle: 90)))
    }

    @Test func videoDataOutputDiscardsLateFramesAndCarriesTheAngle() async throws {
        let session = CaptureSession()
        let frames = VideoDataOutput()
        try frames.setVideoRotationAngle(270)
        frames.setVideoMirrored(true)
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 60)))
            try config.addOutput(frames)
        }
        try await session.startRunning()
        var iterator = frames.frames.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.rotationAngle == 270 && first.isMirrored)
        try await Task.sleep(for: .milliseconds(500))  // a slow consumer
        let later = try #require(await iterator.next())
        #expect(later.frame.sequenceNumber > first.frame.sequenceNumber + 10, "the newest frame, not a backlog")
        await session.stopRunning()
        #expect(frames.droppedFrameCount > 10)
    }
}

/// The sysfs-shaped accelerometer fixtures through the real IIO reader and coordinator.
@Suite struct IIOFixtureAngleTests {
    /// (fixture, device rotation clockwise) — face-up keeps the last angle, which starts at 0.
    static let cases: [(String, Int)] = [("portrait", 0), ("landscape-left", 90), ("upside-down", 180),
                                         ("landscape-right", 270), ("face-up", 0), ("with-mount-matrix", 0),
                                         ("per-axis-scale-with-offset", 90)]

    @Test(arguments: cases)
    func fixtureGivesCaptureAndPreviewAngles(_ name: String, deviceRotation: Int) throws {
        let accelerometer = try IIOAccelerometer(path: fixture("iio/\(name)/iio:device0"))
        let camera = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        for (mounting, display) in [(CameraMounting(position: .back), 0), (CameraMounting(position: .back, sensorRotation: 90), 90),
                                    (CameraMounting(position: .front, sensorRotation: 90), 270)] {
            let coordinator = try RotationCoordinator(camera: camera, mounting: mounting, gravitySource: accelerometer,
                                                      previewDisplayRotation: display)
            defer { coordinator.invalidate() }
            let capture = RotationCoordinator.captureAngle(deviceRotation: deviceRotation, mounting: mounting)
            #expect(coordinator.videoRotationAngleForHorizonLevelCapture == Double(capture), "\(name), \(mounting)")
            #expect(coordinator.videoRotationAngleForHorizonLevelPreview == Double(((capture - display) % 360 + 360) % 360),
                    "\(name), display \(display)")
        }
    }
}
