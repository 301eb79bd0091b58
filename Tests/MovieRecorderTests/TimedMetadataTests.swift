import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieRecorder

/// Timed metadata tracks (`mebx`) written by `MovieWriter`: read back by this library, by
/// exiftool `-ee` sample by sample, listed by ffprobe as a data stream next to a video that
/// still decodes; kept through fragments, a cut and repair.
@Suite(.serialized) struct TimedMetadataTests {
    static let locationKeys: [TimedMetadataKey] = [.locationISO6709, .locationDate, .directionMotion]
    /// The samples written: time in 600ths, then the orientation or location values.
    static let orientations: [(time: Int64, exif: Int64)] = [(0, 1), (240, 6), (420, 3)]
    static let locations: [(time: Int64, iso: String?, date: String)] = [
        (0, "+52.520000+013.405000+034.000/", "2026-06-01T12:00:00.000Z"),
        (300, "+52.520150+013.405300+034.500/", "2026-06-01T12:00:01.000Z"),
        (450, nil, ""),  // the fix was lost
        (540, "+52.520450+013.405900+035.000/", "2026-06-01T12:00:03.000Z"),
    ]

    /// The B-frame fixture (1 s) with an orientation track and a location track describing it.
    func write(interval: Duration?, finish: Bool) throws -> (final: [UInt8], cut: [UInt8]) {
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264")))
        let sink = InMemoryMovieSink()
        var configuration = MovieWriter.Configuration(creationTime: goldenCreationTime)
        configuration.fragmentInterval = interval
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600))
        let orientation = try writer.addMetadataTrack(MetadataTrackFormat(keys: [.videoOrientation], describedTrack: video))
        let location = try writer.addMetadataTrack(MetadataTrackFormat(keys: Self.locationKeys, describedTrack: video))
        var nextOrientation = 0, nextLocation = 0
        for (i, unit) in stream.accessUnits.enumerated() {
            let time = Int64(i) * 20
            while nextOrientation < Self.orientations.count, Self.orientations[nextOrientation].time <= time {
                let o = Self.orientations[nextOrientation]
                try writer.appendMetadataSample([.init(key: .videoOrientation, value: .int(o.exif))], to: orientation, time: o.time)
                nextOrientation += 1
            }
            while nextLocation < Self.locations.count, Self.locations[nextLocation].time <= time {
                let l = Self.locations[nextLocation]
                let items: [TimedMetadataItem] = l.iso.map {
                    [.init(key: .locationISO6709, value: .string($0)), .init(key: .locationDate, value: .string(l.date)),
                     .init(key: .directionMotion, value: .string("45.00"))]
                } ?? []
                try writer.appendMetadataSample(items, to: location, time: l.time)
                nextLocation += 1
            }
            try writer.appendVideoSample(unit.lengthPrefixed, to: video, decodeTime: Int64(i - stream.reorderDepth) * 20,
                                         presentationTime: Int64(unit.presentationIndex) * 20, isSync: unit.isSync)
        }
        let cut = sink.bytes
        if finish { try writer.finish(endTimes: [video: Int64(30 - stream.reorderDepth) * 20]) }
        return (sink.bytes, cut)
    }

    /// Checks the two tracks read back from `path`: every sample at its time with its values,
    /// each lasting until the next, the last until the movie's end (1 s, less for a cut file).
    func expectTracks(_ path: String, label: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        let info = try MovieInfo(source: file)
        let tracks = info.metadataTracks
        try #require(tracks.count == 2, "\(label): \(info.tracks.map(\.mediaType))")
        #expect(tracks.allSatisfy { $0.describedTrackIDs == [1] }, "\(label): cdsc")
        #expect(tracks[0].metadataKeys == [.videoOrientation])
        #expect(tracks[1].metadataKeys == Self.locationKeys)
        let orientation = try info.timedMetadataSamples(of: tracks[0], in: file)
        #expect(orientation.map(\.time) == Self.orientations.map { Double($0.time) / 600 }, "\(label): \(orientation)")
        #expect(orientation.map { $0.value(of: .videoOrientation) } == Self.orientations.map { .int($0.exif) })
        let location = try info.timedMetadataSamples(of: tracks[1], in: file)
        #expect(location.map(\.time) == Self.locations.map { Double($0.time) / 600 }, "\(label): \(location)")
        #expect(location.map { $0.value(of: .locationISO6709) } == Self.locations.map { $0.iso.map { .string($0) } })
        for samples in [orientation, location] {
            let ends = samples.map { $0.time + $0.duration }
            #expect(zip(ends.dropLast(), samples.dropFirst()).allSatisfy { abs($0 - $1.time) < 1e-9 }, "\(label): gaps in \(samples)")
            #expect(abs((ends.last ?? 0) - info.durationSeconds) < 0.001 && info.durationSeconds > 0.9,
                    "\(label): the last sample ends at \(ends.last ?? 0), the movie at \(info.durationSeconds)")
        }
    }

    func store(_ bytes: [UInt8], _ name: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [nil, Duration.milliseconds(300)])
    func theTracksReadBackSampleBySample(interval: Duration?) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = try store(write(interval: interval, finish: true).final, "movie.mov", in: dir)
        try expectTracks(path, label: interval == nil ? "plain" : "fragmented")
    }

    @Test func aCutRecordingRepairsWithItsTracks() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cut = try store(write(interval: .milliseconds(300), finish: true).cut, "cut.mov", in: dir)
        let repaired = dir.file("repaired.mov")
        _ = try MovieFileRepair.repair(path: cut, outputPath: repaired)
        try expectTracks(repaired, label: "repaired")
    }

    /// A metadata `tfdt` that jumps 2^40 ticks (a hostile or damaged fragment) leaves its samples
    /// out of the repaired movie instead of overflowing a duration.
    @Test func aHostileMetadataDecodeTimeIsLeftOut() throws {
        var bytes = try write(interval: .milliseconds(300), finish: false).cut
        let tree = try AtomTree(source: InMemoryMovieSource(bytes))
        let patched = tree.atoms.filter { $0.type == "moof" }.dropFirst().flatMap { $0.children("traf") }.compactMap { traf -> AtomNode? in
            guard let tfhd = traf.child("tfhd"), bytes[Int(tfhd.offset) + 15] == 3 else { return nil }  // track 3: the location
            return traf.child("tfdt")
        }
        try #require(!patched.isEmpty)
        for tfdt in patched {
            let at = Int(tfdt.offset) + tfdt.headerSize + 4
            bytes.replaceSubrange(at..<at + 8, with: [0, 0, 1, 0, 0, 0, 0, 0])
        }
        let file = InMemoryMovieFile(bytes, capacity: bytes.count * 2)
        _ = try MovieRepair.repair(file)
        let info = try MovieInfo(source: file)
        let location = try info.timedMetadataSamples(of: info.metadataTracks[1], in: file)
        #expect(location.count < Self.locations.count && location.allSatisfy { $0.time < 2 }, "\(location)")
    }

    @Test func exiftoolReadsEverySampleAndFFprobeListsADataStream() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = try store(write(interval: .milliseconds(300), finish: true).final, "movie.mov", in: dir)
        let exif = try run("exiftool", ["-ee", "-n", "-s", "-VideoOrientation", "-GPSCoordinates", "-SampleTime", path])
        #expect(exif.status == 0, "exiftool: \(exif.error)")
        let lines = exif.output.split(separator: "\n").map { String($0) }
        let orientations = lines.filter { $0.hasPrefix("VideoOrientation") }.compactMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        #expect(orientations == Self.orientations.map { Int($0.exif) }, "exiftool: \(exif.output)")
        let coordinates = lines.filter { $0.hasPrefix("GPSCoordinates") }
        #expect(coordinates.count == 3, "exiftool: \(exif.output)")
        #expect(coordinates.first?.contains("52.52 13.405 34") == true, "exiftool: \(exif.output)")
        #expect(!exif.output.contains("Warning"), "exiftool: \(exif.output)")
        let streams = try ffprobeStreams(path)
        #expect(streams.map(\.codec_type) == ["video", "data", "data"], "ffprobe: \(streams)")
        let decoded = try decodeAllFrames(path)
        #expect(decoded.videoFrames == 30 && decoded.errors.isEmpty, "ffmpeg: \(decoded)")
    }
}
