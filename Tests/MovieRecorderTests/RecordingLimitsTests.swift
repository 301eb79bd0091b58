import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// Limits and write failures stop a recording with their own error and leave a playable movie:
/// a file size limit, a free-space limit, a really full disk (a small tmpfs) and RLIMIT_FSIZE.
@Suite(.serialized) struct RecordingLimitsTests {
    /// A tmpfs of `megabytes`, mounted for the test (the tests run as root, as CI does).
    struct SmallDisk {
        let path: String
        init(megabytes: Int) throws {
            path = NSTemporaryDirectory() + "movrec-disk-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let result = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
            guard result.status == 0 else {
                throw MissingTool(description: "mounting a \(megabytes) MB tmpfs at \(path) failed (the test needs root): \(result.error)")
            }
        }
        func unmount() {
            _ = try? run("/bin/umount", [path])
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Records big frames from the test pattern through the CLI.
    func record(_ path: String, _ extra: [String]) throws -> ProgramResult {
        try run(movrecPath(), ["record", path, "--video", "testsrc", "--audio", "tone", "--size", "640x480", "--crf", "1",
                               "--preset", "ultrafast", "--duration", "20", "--quiet"] + extra)
    }

    func expectPlayable(_ path: String, _ label: String) throws {
        let decoded = try decodeAllFrames(path)
        #expect(decoded.errors.isEmpty, "\(label): ffmpeg: \(decoded.errors)")
        #expect(decoded.videoFrames > 5, "\(label): only \(decoded.videoFrames) frames")
    }

    @Test func maximumFileSizeStopsWithItsOwnError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("limited.mov")
        let result = try record(path, ["--max-size", "2M"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("maximum file size"))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size >= 2 << 20 && size < 6 << 20, "stopped near the limit: \(size) bytes")
        #expect(try MovieInfo(source: RandomAccessFile(path: path, mode: .read)).tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"])
        try expectPlayable(path, "max size")
    }

    @Test func freeSpaceLimitStopsBeforeTheDiskIsFull() throws {
        let disk = try SmallDisk(megabytes: 8)
        defer { disk.unmount() }
        let path = disk.path + "/free.mov"
        let result = try record(path, ["--min-free", "3M"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("below the limit"))
        #expect(try MovieInfo(source: RandomAccessFile(path: path, mode: .read)).tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"])
        try expectPlayable(path, "free space")
    }

    @Test func aFullDiskEndsWithTheErrorAndAPlayableMovie() throws {
        let disk = try SmallDisk(megabytes: 4)
        defer { disk.unmount() }
        let path = disk.path + "/full.mov"
        let result = try record(path, [])
        #expect(result.status == 1)
        #expect(result.error.contains("No space left on device"), "\(result.error)")
        try expectPlayable(path, "full disk")
    }

    @Test func aFileSizeLimitOfTheProcessEndsWithTheErrorAndAPlayableMovie() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("rlimit.mov")
        let command = "ulimit -f 3000; exec '\(try movrecPath())' record '\(path)' --video testsrc --audio tone --size 640x480 --crf 1 --preset ultrafast --duration 20 --quiet"
        let result = try run("/bin/sh", ["-c", command])
        #expect(result.status == 1, "not killed by SIGXFSZ: \(result.status)")
        #expect(result.error.contains("File too large"), "\(result.error)")
        try expectPlayable(path, "RLIMIT_FSIZE")
    }
}

/// A recording whose directory vanishes stops with an error that says so.
@Suite struct VanishedDirectoryTests {
    /// The directory goes once movrec records into the file; the recording, whose own end is
    /// ten minutes away, stops by itself and says why.
    @Test func removingTheDirectoryStopsTheRecording() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("gone.mov")
        let movrec = try RunningProgram(try movrecPath(), ["record", path, "--video", "testsrc", "--size", "160x120",
                                                           "--duration", "600", "--quiet"])
        defer { movrec.killIfRunning() }
        #expect(await movrec.waitForError(containing: "movrec: recording to \(path)"), "movrec did not start: \(movrec.error)")
        try FileManager.default.removeItem(atPath: dir.path)
        #expect(await movrec.waitForExit(), "the recording stops by itself")
        movrec.killIfRunning()
        #expect(movrec.process.terminationStatus == 1)
        #expect(await movrec.waitForError(containing: "was deleted, or its directory removed"), "\(movrec.error)")
    }
}
