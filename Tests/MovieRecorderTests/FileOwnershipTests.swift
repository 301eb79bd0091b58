import Foundation
import Synchronization
import Testing
@testable import MovieContainer
@testable import MoviePlatform

/// Closing a file while another thread writes it: the writer's calls either finish before the
/// close or fail with a clear error; none reaches the descriptor number the system hands to the
/// next file opened (the race a plain `close` had).
@Suite struct FileOwnershipTests {
    @Test func aCloseWaitsForWritesUnderWayAndLaterWritesFail() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let chunk = [UInt8](repeating: 0xAB, count: 64 << 10)
        for round in 0..<200 {
            let first = try RandomAccessFile(path: dir.file("a\(round)"), mode: .createNew)
            let failures = LockedValue<[String]>([])
            let writing = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                var offset: UInt64 = 0
                writing.signal()
                while true {
                    do {
                        try chunk.withUnsafeBytes { try first.write($0, at: offset) }
                        offset += UInt64(chunk.count)
                    } catch let error as FileError {
                        if error.errno != EBADF { failures.withLock { $0.append("\(error)") } }
                        break
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        break
                    }
                }
                done.signal()
            }
            writing.wait()
            try first.close()
            // Likely to get the number the first file had: no write may land here.
            let second = try RandomAccessFile(path: dir.file("b\(round)"), mode: .createNew)
            done.wait()
            #expect(second.size == 0, "round \(round): a write after close reached the next file opened")
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            try second.close()
        }
    }

    @Test func closingTwiceIsHarmlessAndAClosedFileNamesTheStep() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = try RandomAccessFile(path: dir.file("x"), mode: .createNew)
        try file.close()
        try file.close()
        #expect {
            try file.write([1, 2, 3], at: 0)
        } throws: { error in
            guard let error = error as? FileError else { return false }
            return error.errno == EBADF && error.step == "writing" && error.path == dir.file("x")
        }
    }
}
