import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieRecorder

/// The suites whose recordings follow real time (turns, fixes, pauses, gpsd's pace, event
/// triggers), one at a time and, in Scripts/test, apart from the other suites: on two cores busy
/// with the others' encoders, the moments they schedule drift from the frames they check.
@Suite(.serialized) enum RealTimeMetadataTestGroup {}

extension RealTimeMetadataTestGroup {
    /// A recording's timed metadata: the orientation track turns at the frame where the capture
    /// angle changed while the matrix keeps the angle at the start; a location source's fixes and
    /// the application's key become tracks of their own; every reader still reads the movie.
    @Suite(.serialized) struct RecordedMetadataTests {
        static let temperature = TimedMetadataKey(identifier: "com.example.sensor.temperature", dataType: .float64)

        @Test func turnsFixesAndAnApplicationKeyAreTracksEveryReaderReads() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let path = dir.file("turned.mov")
            // The device turns through a gravity source, the AVCam way: gravity, the rotation
            // coordinator, the capture service, the movie output.
            let gravity = ManualGravitySource()
            gravity.setRotation(clockwiseDegrees: 90)
            let service = CaptureService()
            let observer = RotationObserver(gravitySource: gravity)
            let camera = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
            try await service.session.configure { config in try config.addInput(camera) }
            let movie = MovieFileOutput()
            let location = ManualLocationSource()
            movie.locationSource = location
            movie.timedMetadataKeys = [Self.temperature]
            try await service.addOutput(movie)
            await service.observeRotation(of: observer)
            try observer.setCamera(camera, mounting: CameraMounting(position: .back))
            try await service.session.startRunning()
            #expect(await eventually { movie.videoRotationAngle == 90 })
            let events = RecordingEvents(of: movie)
            try await movie.startRecording(to: path)
            // The fix, the reading and the turns once the first frame is in: a change before it
            // would be the start's.
            #expect(await events.waitForStart())
            let fixes = [(52.52, 13.405), (52.5203, 13.4056)]
            location.report(.fix(LocationFix(latitude: fixes[0].0, longitude: fixes[0].1, altitude: 34, speed: 5, course: 87.3,
                                             horizontalAccuracy: 4.2, time: "2026-06-01T12:00:00.000Z", captureTime: MonotonicClock.now())))
            #expect(movie.appendTimedMetadata([TimedMetadataItem(key: Self.temperature, value: .double(21.5))]))
            #expect(!movie.appendTimedMetadata([TimedMetadataItem(key: .videoOrientation, value: .int(1))]), "the library's own key")
            gravity.setRotation(clockwiseDegrees: 180)
            #expect(await eventually { movie.videoRotationAngle == 180 })
            try await Task.sleep(for: .milliseconds(700))
            location.report(.unavailable(reason: "test"))
            try await Task.sleep(for: .milliseconds(400))
            location.report(.fix(LocationFix(latitude: fixes[1].0, longitude: fixes[1].1, captureTime: MonotonicClock.now())))
            gravity.setRotation(clockwiseDegrees: 270)
            #expect(await eventually { movie.videoRotationAngle == 270 })
            // Stopped once a frame captured after the last turn is written: the turn lands on it.
            let turned = MonotonicClock.now()
            let afterTurn = await eventually {
                guard let start = events.startTime else { return false }
                return movie.recordedDuration >= .nanoseconds(Int64(turned - start)) + .milliseconds(100)
            }
            #expect(afterTurn, "\(movie.recordedDuration) recorded")
            let result = try #require(await movie.stopRecording())
            await service.session.stopRunning()
            await service.stopObservingRotation()

            let file = try RandomAccessFile(path: path, mode: .read)
            defer { try? file.close() }
            let info = try MovieInfo(source: file)
            #expect(info.videoTrack?.orientation == (try VideoOrientation(rotationAngle: 90)), "the matrix keeps the start")
            let tracks = info.metadataTracks
            try #require(tracks.count == 3, "\(info.tracks.map(\.mediaType))")
            let orientation = try info.timedMetadataSamples(of: tracks[0], in: file)
            let exifs = try [90, 180, 270].map { Int64(try VideoOrientation(rotationAngle: Double($0)).exifOrientation) }
            #expect(orientation.map { $0.value(of: .videoOrientation) } == exifs.map { .int($0) }, "\(orientation)")
            // Each turn lands on a frame, the first frame captured after the change was reported.
            let changes = result.rotationChanges.map { Double($0.time.components.seconds) + Double($0.time.components.attoseconds) / 1e18 }
            #expect(changes.count == 2)
            for (sample, change) in zip(orientation.dropFirst(), changes) {
                let frames = sample.time * 30
                #expect(abs(frames - frames.rounded()) < 0.01, "a turn at \(sample.time) s is not on a frame")
                #expect(sample.time >= change - 0.001 && sample.time <= change + 0.1, "turn at \(sample.time) s, reported at \(change) s")
            }
            let places = try info.timedMetadataSamples(of: tracks[1], in: file)
            #expect(places.map { $0.value(of: .locationISO6709) } == [
                .string("+52.520000+013.405000+034.000/"), nil, .string("+52.520300+013.405600/"),
            ], "\(places)")
            #expect(places.first?.value(of: .locationSpeed) == .double(5))
            #expect(places.first?.value(of: .directionMotion) == .string("87.30"))
            #expect(info.metadata.contains(MetadataItem.location(iso6709: "+52.5200+013.4050+034.000/")), "the first fix is the movie's location")
            let sensor = try info.timedMetadataSamples(of: tracks[2], in: file)
            #expect(sensor.map { $0.value(of: Self.temperature) } == [.double(21.5)])

            // Independent readers.
            let exif = try run("exiftool", ["-ee", "-n", "-G3", "-s", "-SampleTime", "-VideoOrientation", "-GPSCoordinates", path])
            let lines = exif.output.split(separator: "\n")
            let listed = lines.filter { $0.hasPrefix("[Doc") && $0.contains("VideoOrientation") }
                .compactMap { Int64($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
            #expect(listed == exifs, "exiftool: \(exif.output)")
            // …at the times the movie has them: each document's SampleTime.
            func field(_ line: Substring) -> (doc: Substring, value: Substring) {
                (line.prefix { $0 != "]" }, line.split(separator: ":").last!.drop { $0 == " " })
            }
            let times = Dictionary(lines.filter { $0.hasPrefix("[Doc") && $0.contains("SampleTime") }.map(field), uniquingKeysWith: { a, _ in a })
            let turnTimes = lines.filter { $0.hasPrefix("[Doc") && $0.contains("VideoOrientation") }.compactMap { times[field($0).doc].flatMap { Double($0) } }
            #expect(turnTimes.count == orientation.count && zip(turnTimes, orientation).allSatisfy { abs($0 - $1.time) < 0.002 },
                    "exiftool's sample times \(turnTimes), the movie's \(orientation.map(\.time))")
            // Two samples ([DocN]) and the movie's own location item ([Main]), from the first fix.
            #expect(lines.filter { $0.hasPrefix("[Doc") && $0.contains("GPSCoordinates") }.count == 2, "exiftool: \(exif.output)")
            #expect(lines.filter { $0.hasPrefix("[Main]") && $0.contains("GPSCoordinates") && $0.hasSuffix(": 52.52 13.405 34") }.count == 1, "exiftool: \(exif.output)")
            #expect(try ffprobeStreams(path).map(\.codec_type) == ["video", "data", "data", "data"])
            let decoded = try decodeAllFrames(path)
            #expect(decoded.videoFrames == result.frameCount && decoded.errors.isEmpty, "ffmpeg: \(decoded)")
            let mediainfo = try run("mediainfo", ["--Inform=Video;%Rotation%", path])
            #expect(mediainfo.output.trimmingCharacters(in: .whitespacesAndNewlines) == "90.000", "mediainfo: \(mediainfo.output)")
            let gst = try run("gst-launch-1.0", ["-q", "filesrc", "location=\(path)", "!", "qtdemux", "!", "h264parse", "!",
                                                  "avdec_h264", "!", "fakesink"])
            #expect(gst.status == 0, "gst-launch: \(gst.error)")
            let chromium = try chromiumPlayback(of: path, in: dir)
            // Chromium plays it, turned by the matrix: 160x120 turned 90° shows 120x160.
            #expect(chromium.frames > 0 && chromium.text.contains("size=120x160"), "Chromium: \(chromium.text)")

            // movrec inspect lists the samples and exports the track as GPX 1.1 that validates.
            let listing = try run(movrecPath(), ["inspect", "--metadata", path])
            #expect(listing.status == 0 && listing.output.contains("com.apple.quicktime.video-orientation = \(exifs[1])"), "\(listing.output)")
            #expect(listing.output.contains("(no value)"), "the lost fix is listed: \(listing.output)")
            let gpx = try run(movrecPath(), ["inspect", "--gpx", path])
            #expect(gpx.status == 0)
            #expect(gpx.output.components(separatedBy: "<trkpt ").count - 1 == 2, "\(gpx.output)")
            #expect(gpx.output.contains(#"<trkpt lat="52.52" lon="13.405">"#) && gpx.output.contains("<time>2026-06-01T12:00:00.000Z</time>"), "\(gpx.output)")
            try gpx.outputData.write(to: URL(fileURLWithPath: dir.file("track.gpx")))
            let valid = try run(toolPath("xmllint"), ["--noout", "--schema", try gpxSchema(in: dir), dir.file("track.gpx")])
            #expect(valid.status == 0, "xmllint: \(valid.error)")
        }

        /// The GPX 1.1 schema (topografix.com/GPX/1/1), as Debian's pytrainer package ships it: its
        /// .deb is downloaded and the file taken out, checked against its SHA-256.
        func gpxSchema(in dir: TemporaryDirectory) throws -> String {
            let script = """
                cd '\(dir.path)' && (apt-get download -qq pytrainer 2>/dev/null || (apt-get update -qq && apt-get download -qq pytrainer)) \
                && dpkg-deb --fsys-tarfile pytrainer_*.deb | tar -xO ./usr/share/pytrainer/schemas/Topografix_gpx11.xsd > gpx.xsd \
                && echo 'e0e4cb84f096f65b03fb2d391d74a5389563fe015f17a011ccfe7e37c01267f0  gpx.xsd' | sha256sum -c --quiet
                """
            let fetched = try run("/bin/sh", ["-c", script])
            guard fetched.status == 0 else {
                throw MissingTool(description: "the test needs the GPX 1.1 schema from Debian's pytrainer package: \(fetched.error)")
            }
            return dir.file("gpx.xsd")
        }
    }

    /// The orientation and location tracks through segments, a pause, a kill and repair, and
    /// `movrec rotate`: exiftool lists the samples after each.
    @Suite(.serialized) struct MetadataSurvivalTests {
        /// The EXIF orientation of a clockwise angle.
        func exif(_ angle: Double) throws -> Int64 { Int64(try VideoOrientation(rotationAngle: angle).exifOrientation) }

        /// The samples of `path`'s metadata track holding `key`.
        func samples(_ path: String, _ key: TimedMetadataKey) throws -> [TimedMetadataSample] {
            let file = try RandomAccessFile(path: path, mode: .read)
            defer { try? file.close() }
            let info = try MovieInfo(source: file)
            let track = try #require(info.metadataTracks.first { $0.metadataKeys?.contains(key) == true }, "\(path)")
            return try info.timedMetadataSamples(of: track, in: file)
        }

        /// Whether `path` has a metadata track holding `key` with at least one sample.
        func holdsSamples(_ path: String, _ key: TimedMetadataKey) throws -> Bool {
            let file = try RandomAccessFile(path: path, mode: .read)
            defer { try? file.close() }
            let info = try MovieInfo(source: file)
            guard let track = info.metadataTracks.first(where: { $0.metadataKeys?.contains(key) == true }) else { return false }
            return try !info.timedMetadataSamples(of: track, in: file).isEmpty
        }

        /// The VideoOrientation values exiftool `-ee` lists for `path`.
        func exiftoolOrientations(_ path: String) throws -> [Int64] {
            let result = try run("exiftool", ["-ee", "-n", "-s3", "-VideoOrientation", path])
            return result.output.split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        }

        @Test func eachSegmentStartsWithTheValuesInForce() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let session = CaptureSession()
            let movie = MovieFileOutput()
            let location = ManualLocationSource()
            movie.locationSource = location
            movie.segmentDuration = .seconds(1)
            try await session.configure { config in
                try config.addInput(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)))
                try config.addOutput(movie)
            }
            try await session.startRunning()
            try movie.setVideoRotationAngle(90)
            let events = RecordingEvents(of: movie)
            try await movie.startRecording(toSegments: try SegmentFileNames(pattern: dir.file("seg-%d.mov")))
            // The fix once the first frame is in, the turn once a later file has begun, and the stop
            // once another has: at least three files, the fix before the last and the turn too.
            @Sendable func filesBegun() -> Int { events.all.count { if case .didStartSegment = $0 { true } else { false } } + 1 }
            #expect(await events.waitForStart())
            location.report(.fix(LocationFix(latitude: 52.52, longitude: 13.405, captureTime: MonotonicClock.now())))
            let atFix = filesBegun()
            #expect(await eventually { filesBegun() > atFix }, "no file after the fix's")
            try movie.setVideoRotationAngle(180)
            let atTurn = filesBegun()
            #expect(await eventually { filesBegun() > atTurn }, "no file after the turn's")
            _ = try #require(await movie.stopRecording())
            await session.stopRunning()
            let files = (0..<16).map { dir.file("seg-\($0).mov") }.filter { FileManager.default.fileExists(atPath: $0) }
            try #require(files.count >= 3, "\(files)")
            // The fix lands in the segment its capture time falls in: the first, or a later one when
            // this task learnt of the first frame late. Every later file starts with it.
            let fixed = try #require(files.firstIndex { try holdsSamples($0, .locationISO6709) }, "no file holds the fix")
            try #require(fixed < files.count - 1, "the fix landed in the last file, \(files[fixed])")
            var orientationAtStart = try exif(90)
            for (index, path) in files.enumerated() {
                let turns = try samples(path, .videoOrientation)
                #expect(turns.first?.time == 0, "\(path) starts without its orientation: \(turns)")
                #expect(turns.first?.value(of: .videoOrientation) == .int(orientationAtStart), "\(path): \(turns)")
                orientationAtStart = try turns.last.map { sample throws -> Int64 in
                    guard case .int(let value)? = sample.value(of: .videoOrientation) else { throw MissingTool(description: "no value") }
                    return value
                } ?? orientationAtStart
                #expect(try exiftoolOrientations(path) == turns.compactMap {
                    if case .int(let value)? = $0.value(of: .videoOrientation) { value } else { nil }
                }, "exiftool on \(path)")
                if index > fixed {
                    let places = try samples(path, .locationISO6709)
                    #expect(places.first?.time == 0 && places.first?.value(of: .locationISO6709) == .string("+52.520000+013.405000/"),
                            "\(path) starts without the position in force: \(places)")
                }
            }
            #expect(orientationAtStart == (try exif(180)), "the last file ends turned")
        }

        @Test func aTurnWhilePausedLandsOnTheFirstFrameAfterTheResume() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let path = dir.file("paused.mov")
            let session = CaptureSession()
            let movie = MovieFileOutput()
            try await session.configure { config in
                try config.addInput(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)))
                try config.addOutput(movie)
            }
            try await session.startRunning()
            let events = RecordingEvents(of: movie)
            try await movie.startRecording(to: path)
            // Paused 0.6 s after the first frame's capture, turned while paused for 0.6 s, and
            // stopped once 0.6 s more are written; the turn's time is checked against the moment
            // of the pause, measured, not against what the sleeps were meant to give.
            #expect(await events.waitForStart())
            let start = try #require(events.startTime)
            let due = start + 600_000_000, now = MonotonicClock.now()
            if due > now { try await Task.sleep(for: .nanoseconds(Int64(due - now))) }
            let pausing = MonotonicClock.now()
            movie.pauseRecording()
            let paused = MonotonicClock.now()
            try movie.setVideoRotationAngle(270)
            try await Task.sleep(for: .milliseconds(600))
            movie.resumeRecording()
            #expect(await eventually { movie.recordedDuration >= .nanoseconds(Int64(paused - start)) + .milliseconds(600) },
                    "\(movie.recordedDuration) recorded")
            let result = try #require(await movie.stopRecording())
            await session.stopRunning()
            let turns = try samples(path, .videoOrientation)
            #expect(turns.map { $0.value(of: .videoOrientation) } == [.int(try exif(0)), .int(try exif(270))], "\(turns)")
            // The pause is out of the timeline: the turn comes after the media recorded up to the
            // pause (the 0.6 s pause not counted), on a frame.
            let at = turns.last?.time ?? 0
            let pausedAt = (Double(pausing - start) / 1e9, Double(paused - start) / 1e9)
            #expect(at > pausedAt.0 - 0.2 && at < pausedAt.1 + 0.3 && abs(at * 30 - (at * 30).rounded()) < 0.01,
                    "the turn at \(at) s; paused at \(pausedAt) s")
            #expect(Double(result.frameCount) / 30 > at + 0.3, "\(result)")
            #expect(try exiftoolOrientations(path) == [try exif(0), try exif(270)])
        }

        @Test func aKilledRecordingRepairsAndRotatesWithItsTrack() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let path = dir.file("killed.mov")
            // Killed once two fragments are whole on the disk, however long movrec took to start.
            let movrec = try RunningProgram(try movrecPath(), ["record", path, "--video", "testsrc", "--size", "160x120",
                                                               "--rotation", "90", "--quiet"])
            defer { movrec.killIfRunning() }
            #expect(await movrec.waitForError(containing: "movrec: recording to"), "movrec did not start: \(movrec.error)")
            #expect(await eventually { wholeFragmentCount(path) >= 2 }, "\(wholeFragmentCount(path)) fragments on the disk")
            movrec.killIfRunning()
            let repaired = dir.file("repaired.mov")
            let repair = try run(movrecPath(), ["repair", path, "--output", repaired])
            #expect(repair.status == 0, "\(repair.output)\(repair.error)")
            #expect(try samples(repaired, .videoOrientation).map { $0.value(of: .videoOrientation) } == [.int(try exif(90))])
            #expect(try exiftoolOrientations(repaired) == [try exif(90)])
            let rotate = try run(movrecPath(), ["rotate", repaired, "--angle", "180"])
            #expect(rotate.status == 0, "\(rotate.error)")
            #expect(try MovieInfo(path: repaired).videoTrack?.orientation == (try VideoOrientation(rotationAngle: 180)))
            #expect(try exiftoolOrientations(repaired) == [try exif(90)], "rotate keeps the track (the capture's orientation)")
            #expect(try decodeAllFrames(repaired).errors.isEmpty)
        }
    }
}
