/// Random-access storage a ``MovieWriter`` uses for data it sets aside while recording: the
/// sample-table entries that are already final, so that a recording of hours does not hold
/// its tables in memory. The writer reads them back once, when it writes the movie atom.
///
/// A sink provides it through ``MovieByteSink/makeScratchStorage()``; for a file that is an
/// unnamed file beside the movie, in the library's `MovieRecorder` module.
public protocol MovieScratchStorage: AnyObject {
    /// Writes `bytes` at `offset`.
    /// - Throws: whatever the storage reports, such as a full disk.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Reads into `buffer` from `offset`.
    /// - Returns: The number of bytes read; fewer than `buffer.count` only past the end.
    func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Releases the storage (for a file: closes it, which frees its space).
    func close() throws
}

extension MovieByteSink {
    /// No scratch storage: a writer keeps what it sets aside in memory, in fixed-size blocks.
    public func makeScratchStorage() throws -> (any MovieScratchStorage)? { nil }
}

/// Scratch storage in memory, in blocks of 64 KiB allocated as they are first written: what a
/// writer uses when its sink offers no scratch storage, and a stand-in for tests.
package final class InMemoryScratchStorage: MovieScratchStorage {
    private static let pageSize = 1 << 16
    private var pages: [[UInt8]] = []
    /// The number of bytes up to the end of the last write.
    package private(set) var size: UInt64 = 0

    package init() {}

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let position = Int(offset) + done
            let page = position / Self.pageSize, start = position % Self.pageSize
            while pages.count <= page { pages.append([UInt8](repeating: 0, count: Self.pageSize)) }
            let n = min(bytes.count - done, Self.pageSize - start)
            pages[page].withUnsafeMutableBytes {
                UnsafeMutableRawBufferPointer(rebasing: $0[start..<start + n]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: bytes[done..<done + n]))
            }
            done += n
        }
        size = max(size, offset + UInt64(bytes.count))
    }

    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < size else { return 0 }
        let total = min(buffer.count, Int(size - offset))
        var done = 0
        while done < total {
            let position = Int(offset) + done
            let page = position / Self.pageSize, start = position % Self.pageSize
            let n = min(total - done, Self.pageSize - start)
            pages[page].withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + n]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: $0[start..<start + n]))
            }
            done += n
        }
        return total
    }

    package func close() throws { pages = [] }
}
