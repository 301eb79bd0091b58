import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieRecorder

/// A FIFO, socket or device where a movie or an input is expected is refused at once with an
/// error naming it; nothing blocks in `open` (a FIFO with no writer used to hang `inspect`).
@Suite struct SpecialFileTests {
    func makeFIFO(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("pipe.mov")
        #expect(mkfifo(path, 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        return path
    }

    /// Runs movrec with a watchdog: a command that blocks is killed and reported.
    func runPromptly(_ arguments: [String]) throws -> ProgramResult {
        let started = Date()
        let result = try run("/usr/bin/timeout", ["-s", "KILL", "20", try movrecPath()] + arguments)
        #expect(result.status != 137, "movrec \(arguments.joined(separator: " ")) blocked (killed after 20 s)")
        #expect(Date().timeIntervalSince(started) < 10)
        return result
    }

    @Test func everyCommandRefusesAFIFO() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fifo = try makeFIFO(dir)
        let movie = fixture("golden/orientation-0.mov")
        for arguments in [["inspect", fifo], ["rotate", fifo, "--angle", "90"], ["repair", fifo],
                          ["repair", movie, "--output", fifo, "--overwrite"],
                          ["mux", dir.file("out.mov"), "--video", fifo],
                          ["mux", fifo, "--video", fixture("testsrc-ipp.264"), "--overwrite"]] {
            let result = try runPromptly(arguments)
            #expect(result.status == 1, "\(arguments): \(result.error)")
            #expect(result.error.contains("\(fifo):") && result.error.contains("it is a FIFO (named pipe)")
                    && result.error.contains("give the path of a regular file"), "\(arguments): \(result.error)")
        }
    }

    @Test func theLibraryRefusesDevicesAndFIFOsWithATypedError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fifo = try makeFIFO(dir)
        for (path, mode) in [(fifo, RandomAccessFile.Mode.read), (fifo, .update), (fifo, .createOrTruncate),
                             ("/dev/null", .read), ("/dev/null", .createOrTruncate)] {
            #expect {
                _ = try RandomAccessFile(path: path, mode: mode)
            } throws: { error in
                (error as? FileError)?.code == .notRegularFile
            }
        }
        #expect(throws: FileError.self) { _ = try MovieInfo(path: fifo) }
    }
}
