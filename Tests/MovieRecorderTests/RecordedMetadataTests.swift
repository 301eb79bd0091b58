import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieRecorder

/// A recording's timed metadata: the orientation track turns at the frame where the capture
/// angle changed while the matrix keeps the angle at the start; a location source's fixes and
/// the application's key become tracks of their own; every reader still reads the movie.
@Suite(.serialized) struct RecordedMetadataTests {
    static let temperature = TimedMetadataKey(identifier: "com.example.sensor.temperature", dataType: .float64)

    @Test func turnsFixesAndAnApplicationKeyAreTracksEveryReaderReads() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("turned.mov")
        let session = CaptureSession()
        let movie = MovieFileOutput()
        let location = ManualLocationSource()
        movie.locationSource = location
        movie.timedMetadataKeys = [Self.temperature]
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)))
            try config.addOutput(movie)
        }
        try await session.startRunning()
        try movie.setVideoRotationAngle(90)
        try await movie.startRecording(to: path)
        try await Task.sleep(for: .milliseconds(300))
        let fixes = [(52.52, 13.405), (52.5203, 13.4056)]
        location.report(.fix(LocationFix(latitude: fixes[0].0, longitude: fixes[0].1, altitude: 34, speed: 5, course: 87.3,
                                         horizontalAccuracy: 4.2, time: "2026-06-01T12:00:00.000Z", captureTime: MonotonicClock.now())))
        #expect(movie.appendTimedMetadata([TimedMetadataItem(key: Self.temperature, value: .double(21.5))]))
        #expect(!movie.appendTimedMetadata([TimedMetadataItem(key: .videoOrientation, value: .int(1))]), "the library's own key")
        try movie.setVideoRotationAngle(180)
        try await Task.sleep(for: .milliseconds(700))
        location.report(.unavailable(reason: "test"))
        try await Task.sleep(for: .milliseconds(400))
        location.report(.fix(LocationFix(latitude: fixes[1].0, longitude: fixes[1].1, captureTime: MonotonicClock.now())))
        try movie.setVideoRotationAngle(270)
        try await Task.sleep(for: .milliseconds(300))
        let result = try #require(await movie.stopRecording())
        await session.stopRunning()

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
        let sensor = try info.timedMetadataSamples(of: tracks[2], in: file)
        #expect(sensor.map { $0.value(of: Self.temperature) } == [.double(21.5)])

        // Independent readers.
        let exif = try run("exiftool", ["-ee", "-n", "-s", "-VideoOrientation", "-GPSCoordinates", path])
        let listed = exif.output.split(separator: "\n").filter { $0.hasPrefix("VideoOrientation") }
            .compactMap { Int64($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        #expect(listed == exifs, "exiftool: \(exif.output)")
        #expect(exif.output.split(separator: "\n").filter { $0.hasPrefix("GPSCoordinates") }.count == 2, "exiftool: \(exif.output)")
        #expect(try ffprobeStreams(path).map(\.codec_type) == ["video", "data", "data", "data"])
        let decoded = try decodeAllFrames(path)
        #expect(decoded.videoFrames == result.frameCount && decoded.errors.isEmpty, "ffmpeg: \(decoded)")
        let mediainfo = try run("mediainfo", ["--Inform=Video;%Rotation%", path])
        #expect(mediainfo.output.trimmingCharacters(in: .whitespacesAndNewlines) == "90.000", "mediainfo: \(mediainfo.output)")
        let gst = try run("gst-launch-1.0", ["-q", "filesrc", "location=\(path)", "!", "qtdemux", "!", "h264parse", "!",
                                              "avdec_h264", "!", "fakesink"])
        #expect(gst.status == 0, "gst-launch: \(gst.error)")

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
