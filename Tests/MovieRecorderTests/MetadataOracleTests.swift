import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// exiftool and ffprobe — readers written by others — must find in a movie's `moov/meta` every
/// item the writer was given: Apple's creation date, ISO 6709 location, make, model and
/// software, and custom keys holding text, an integer and a float.
@Suite struct MetadataOracleTests {
    static let items: [MetadataItem] = [
        .creationDate(goldenCreationTime),
        .location(latitude: 37.3317, longitude: -122.0302, altitude: 50)!,
        .make("Raspberry Pi"),
        .model("Camera Module 3"),
        .software("movrec 0.1"),
        MetadataItem(key: "com.example.movrec.take", value: .string("Take 7 — café")),
        MetadataItem(key: "com.example.movrec.scene", value: .int(42)),
        MetadataItem(key: "com.example.movrec.gain", value: .double(1.5)),
    ]

    /// Muxes Fixtures/testsrc-ipp.264 with the items into `directory`.
    static func makeMovie(in directory: TemporaryDirectory) throws -> String {
        var options = StreamMuxer.Options()
        options.creationTime = goldenCreationTime
        options.metadata = items
        let path = directory.file("metadata.mov")
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-ipp.264")))
        try StreamMuxer.mux(video: stream, audio: nil, to: path, options: options)
        return path
    }

    @Test func exiftoolReadsEveryKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try Self.makeMovie(in: directory)

        let result = try run("exiftool", ["-j", "-a", "-G1", "-ee", path])
        #expect(result.status == 0, "exiftool: \(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]).first
        #expect(json?["QuickTime:HandlerType"] as? String == "Metadata Tags", "the meta handler is mdta")
        #expect(json?["Keys:CreationDate"] as? String == "2026:01:01 00:00:00+00:00")
        #expect(json?["Keys:GPSCoordinates"] as? String == "37 deg 19' 54.12\" N, 122 deg 1' 48.72\" W, 50 m Above Sea Level")
        #expect(json?["Keys:Make"] as? String == "Raspberry Pi")
        #expect(json?["Keys:Model"] as? String == "Camera Module 3")
        #expect(json?["Keys:Software"] as? String == "movrec 0.1")
        // exiftool names a custom key from its parts after "com.".
        #expect(json?["Keys:ExampleMovrecTake"] as? String == "Take 7 — café")
        #expect((json?["Keys:ExampleMovrecScene"] as? NSNumber)?.intValue == 42)
        #expect((json?["Keys:ExampleMovrecGain"] as? NSNumber)?.doubleValue == 1.5)
        #expect(json?.keys.contains { $0.hasSuffix(":Warning") } == false, "exiftool warned: \(json?.filter { $0.key.hasSuffix(":Warning") } ?? [:])")

        // Without print conversion, the coordinates come back as the numbers written.
        let numeric = try run("exiftool", ["-j", "-n", "-Keys:GPSCoordinates", path])
        let coordinates = try #require(try JSONSerialization.jsonObject(with: Data(numeric.output.utf8)) as? [[String: Any]]).first
        #expect(coordinates?["GPSCoordinates"] as? String == "37.3317 -122.0302 50")
    }

    @Test func ffprobeReadsEveryKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try Self.makeMovie(in: directory)

        let result = try run("ffprobe", ["-v", "warning", "-show_entries", "format_tags", "-of", "json", path])
        #expect(result.status == 0)
        #expect(result.error.isEmpty, "ffprobe warned: \(result.error)")
        struct Output: Decodable {
            struct Format: Decodable { var tags: [String: String] }
            var format: Format
        }
        let tags = try JSONDecoder().decode(Output.self, from: Data(result.output.utf8)).format.tags
        #expect(tags["com.apple.quicktime.creationdate"] == "2026-01-01T00:00:00+0000")
        #expect(tags["com.apple.quicktime.location.ISO6709"] == "+37.3317-122.0302+050.000/")
        #expect(tags["com.apple.quicktime.make"] == "Raspberry Pi")
        #expect(tags["com.apple.quicktime.model"] == "Camera Module 3")
        #expect(tags["com.apple.quicktime.software"] == "movrec 0.1")
        #expect(tags["com.example.movrec.take"] == "Take 7 — café")
        // FFmpeg prints integers with %d and float32 values with %f.
        #expect(tags["com.example.movrec.scene"] == "42")
        #expect(tags["com.example.movrec.gain"] == "1.500000")
        #expect(tags["creation_time"] == "2026-01-01T00:00:00.000000Z", "mvhd still carries the creation time")
    }

    @Test func metadataLeavesTheMediaDecodableAndReadsBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try Self.makeMovie(in: directory)

        let decoded = try decodeAllFrames(path)
        #expect(decoded.errors.isEmpty, "ffmpeg: \(decoded.errors)")
        #expect(decoded.videoFrames == 30)
        let info = try MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        #expect(info.metadata == Self.items)
        #expect(info.tree.atom("moov")?.children.map(\.type) == ["mvhd", "trak", "meta"])
    }
}
