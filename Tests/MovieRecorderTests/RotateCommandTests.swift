import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// `movrec rotate` on files written by other software: only the 36 matrix bytes change, and
/// every reader then reports the new orientation. Files it cannot edit safely stay untouched.
@Suite struct RotateCommandTests {
    /// Movies written by other muxers, made fresh for each test.
    enum ForeignMovie: String, CaseIterable, CustomStringConvertible {
        case ffmpegMOV = "ffmpeg.mov"
        case ffmpegMP4 = "ffmpeg.mp4"
        case gstreamerMOV = "gstreamer.mov"
        case ffmpegHEVC = "ffmpeg-hevc.mov"
        /// This project's own HEVC golden movie, copied.
        case hevcGolden = "hevc.mov"
        var description: String { rawValue }

        func make(in directory: TemporaryDirectory) throws -> String {
            let path = directory.file(rawValue)
            let result: ProgramResult
            switch self {
            case .ffmpegMOV, .ffmpegMP4:
                result = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30",
                                            "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "1", "-c:v", "libx264",
                                            "-pix_fmt", "yuv420p", "-c:a", rawValue.hasSuffix("mov") ? "pcm_s16le" : "aac", path])
            case .ffmpegHEVC:
                result = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-t", "1",
                                            "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", path])
            case .hevcGolden:
                try Data(try RandomAccessFile.readAll(fixture("golden/hevc-orientation-0.mov"))).write(to: URL(fileURLWithPath: path))
                result = ProgramResult(status: 0, outputData: Data(), error: "")
            case .gstreamerMOV:
                _ = try toolPath("gst-launch-1.0")
                result = try run("gst-launch-1.0", ["-q", "-e", "videotestsrc", "num-buffers=30", "!",
                                                    "video/x-raw,width=160,height=120,framerate=30/1,format=I420", "!",
                                                    "x264enc", "!", "qtmux", "!", "filesink", "location=\(path)"])
            }
            #expect(result.status == 0, "\(self) failed: \(result.error)")
            return path
        }
    }

    static let cases: [(ForeignMovie, Double, Bool)] = ForeignMovie.allCases.flatMap { movie in
        [(movie, 90.0, false), (movie, 270.0, true)]
    }

    @Test(arguments: cases)
    func rotateChangesOnlyTheMatrixBytes(_ movie: ForeignMovie, angle: Double, mirror: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = try movie.make(in: dir)
        let before = try RandomAccessFile.readAll(path)
        let matrixOffset = try #require(try MovieInfo(source: RandomAccessFile(path: path, mode: .read)).videoTrack).matrixOffset

        let result = try run(movrecPath(), ["rotate", path, "--angle", String(Int(angle))] + (mirror ? ["--mirror"] : []))
        #expect(result.status == 0, "movrec rotate: \(result.error)")

        let after = try RandomAccessFile.readAll(path)
        #expect(after.count == before.count)
        let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(!changed.isEmpty)
        #expect(changed.allSatisfy { UInt64($0) >= matrixOffset && UInt64($0) < matrixOffset + 36 },
                "bytes outside the matrix changed: \(changed.prefix(10))")

        let expected = try VideoOrientation(rotationAngle: angle, isMirrored: mirror)
        let video = try #require(try ffprobeStreams(path).first { $0.codec_type == "video" })
        #expect((video.rotation ?? 0) == expected.ffprobeRotation)
        let mediainfo = try run("mediainfo", ["--Inform=Video;%Rotation%", path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Double(mediainfo) == Double(expected.displayedClockwiseAngle))
        let exiftool = try run("exiftool", ["-s3", "-n", "-Rotation", path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(exiftool == String(expected.displayedClockwiseAngle))
        let decoded = try decodeAllFrames(path)
        #expect(decoded.errors.isEmpty && decoded.videoFrames == 30)
    }

    @Test func rotateKeepsMirroringUnlessTold() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("m.mov")
        try FileManager.default.copyItem(atPath: fixture("golden/orientation-90-mirrored.mov"), toPath: path)
        #expect(try run(movrecPath(), ["rotate", path, "--angle", "180"]).status == 0)
        var info = try MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        #expect(info.videoTrack?.orientation == (try VideoOrientation(rotationAngle: 180, isMirrored: true)))
        #expect(try run(movrecPath(), ["rotate", path, "--angle", "0", "--no-mirror"]).status == 0)
        info = try MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        #expect(info.videoTrack?.orientation == .up)
        #expect(try RandomAccessFile.readAll(path) == RandomAccessFile.readAll(fixture("golden/orientation-0.mov")),
                "rotating back to 0 gives exactly the unrotated golden file")
    }

    /// A refused file is left byte for byte as it was, and the message says why.
    func expectRefused(_ path: String, arguments: [String], reason: String) throws {
        let before = try RandomAccessFile.readAll(path)
        let result = try run(movrecPath(), ["rotate", path] + arguments)
        #expect(result.status != 0)
        #expect(result.error.contains(reason), "message was: \(result.error)")
        #expect(try RandomAccessFile.readAll(path) == before, "a refused file must not change")
    }

    @Test func refusesUnsupportedAngles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("a.mov")
        try FileManager.default.copyItem(atPath: fixture("golden/orientation-0.mov"), toPath: path)
        for angle in ["45", "-90", "360", "nan", "inf"] {
            try expectRefused(path, arguments: ["--angle", angle], reason: "not supported")
        }
    }

    @Test func refusesMovieMatrixThatIsNotIdentity() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("mvhd.mov")
        var bytes = try RandomAccessFile.readAll(fixture("golden/orientation-0.mov"))
        let info = try MovieInfo(source: InMemoryMovieSource(bytes))
        let mvhd = try #require(info.tree.atom("moov")?.child("mvhd"))
        // The mvhd matrix starts 36 bytes after the atom's start for version 0.
        let rotated = VideoOrientation.allCases[1].matrix(width: 160, height: 120).bytes
        bytes.replaceSubrange(Int(mvhd.offset) + 44..<Int(mvhd.offset) + 80, with: rotated)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try expectRefused(path, arguments: ["--angle", "90"], reason: "non-identity matrix")
    }

    @Test func refusesTruncatedAndAudioOnlyFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let truncated = dir.file("truncated.mov")
        let bytes = try RandomAccessFile.readAll(fixture("golden/orientation-0.mov"))
        try Data(bytes.dropLast(100)).write(to: URL(fileURLWithPath: truncated))
        try expectRefused(truncated, arguments: ["--angle", "90"], reason: "not a finished movie")

        let audio = dir.file("audio.mov")
        #expect(try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine", "-t", "0.2", "-c:a", "pcm_s16le", audio]).status == 0)
        try expectRefused(audio, arguments: ["--angle", "90"], reason: "no video track")
    }

    @Test func refusesScaledMatrix() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("scaled.mov")
        var bytes = try RandomAccessFile.readAll(fixture("golden/orientation-0.mov"))
        let video = try #require(try MovieInfo(source: InMemoryMovieSource(bytes)).videoTrack)
        bytes[Int(video.matrixOffset) + 1] = 2  // a = 2.0: a scale, not a rotation
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try expectRefused(path, arguments: ["--angle", "90"], reason: "scales, shears")
    }
}
