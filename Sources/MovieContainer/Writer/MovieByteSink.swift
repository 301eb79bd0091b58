/// A destination for a movie's bytes: a file, in the library's `MovieRecorder` module.
///
/// The writer addresses every write by absolute offset, so a sink can be a plain file written
/// with `pwrite`. A write past the current end leaves a hole that reads as zeros.
public protocol MovieByteSink: AnyObject {
    /// Writes `bytes` at `offset`.
    /// - Throws: whatever the underlying storage reports, such as a full disk.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Writes `buffers` one after another from `offset` (for a file: `pwritev`, so bytes
    /// gathered from many places reach the file in one call without being copied together).
    /// The default writes each buffer with ``write(_:at:)``.
    /// - Throws: whatever the underlying storage reports, such as a full disk.
    func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws
    /// Makes everything written so far durable (for a file: `fdatasync`).
    func synchronize() throws
    /// Cuts the data to `size` bytes (for a file: `ftruncate`).
    func truncate(to size: UInt64) throws
    /// Creates storage for the sample-table entries a writer sets aside during a long
    /// recording, or returns `nil` to keep them in memory (the default). A writer asks at most
    /// once, when a table first outgrows the block it keeps in memory.
    /// - Throws: whatever prevents creating it; the writer reports it as a failed write.
    func makeScratchStorage() throws -> (any MovieScratchStorage)?
}

extension MovieByteSink {
    /// Writes `buffers` one after another from `offset`, each with ``write(_:at:)-(UnsafeRawBufferPointer,_)``.
    /// - Parameters:
    ///   - buffers: The bytes to write, in order.
    ///   - offset: Where the first buffer goes.
    /// - Throws: whatever ``write(_:at:)-(UnsafeRawBufferPointer,_)`` throws.
    public func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        var position = offset
        for buffer in buffers {
            try write(buffer, at: position)
            position += UInt64(buffer.count)
        }
    }

    /// Writes an array's bytes at `offset`.
    public func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }
}

/// A sink that keeps the movie in memory, for tests and for movies built before being stored.
public final class InMemoryMovieSink: MovieByteSink {
    /// The movie's bytes.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty sink.
    public init() {}

    /// Copies `source` into ``InMemoryMovieSink/bytes`` at `offset`, filling any gap before it with
    /// zeros.
    /// - Parameters:
    ///   - source: The bytes to write.
    ///   - offset: The position of the first byte.
    public func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws {
        let start = Int(offset)
        if bytes.count < start + source.count { bytes.append(contentsOf: repeatElement(0, count: start + source.count - bytes.count)) }
        bytes.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[start..<start + source.count]).copyMemory(from: source) }
    }

    /// Does nothing: bytes in memory need no flushing.
    public func synchronize() throws {}

    /// Cuts ``InMemoryMovieSink/bytes`` to `size` bytes; a larger `size` leaves them as they are.
    /// - Parameter size: The length to cut to, in bytes.
    public func truncate(to size: UInt64) throws {
        if UInt64(bytes.count) > size { bytes.removeLast(bytes.count - Int(size)) }
    }
}

/// A movie in memory that can be read and written in place, like a file opened for update:
/// what repair needs when the movie is not on disk (tests, fuzzing).
package final class InMemoryMovieFile: MovieByteSource, MovieByteSink {
    /// The movie's bytes.
    package private(set) var bytes: [UInt8]
    /// Writes that would grow it past this many bytes throw.
    package let capacity: Int

    /// Creates a file that holds `bytes`.
    /// - Parameters:
    ///   - bytes: The initial contents.
    ///   - capacity: The most bytes that writes may grow it to; 64 MiB by default.
    package init(_ bytes: [UInt8], capacity: Int = 1 << 26) {
        self.bytes = bytes
        self.capacity = capacity
    }

    /// The number of bytes in ``InMemoryMovieFile/bytes``.
    package var size: UInt64 { UInt64(bytes.count) }

    /// Returns up to `count` bytes starting at `offset`.
    /// - Parameters:
    ///   - offset: The position of the first byte.
    ///   - count: The most bytes to return.
    /// - Returns: The bytes; fewer than `count` at the end of the data, none past it.
    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < size else { return [] }
        return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
    }

    /// The error for a write past ``capacity``.
    package struct CapacityExceeded: Error {}

    /// Copies `source` into ``InMemoryMovieFile/bytes`` at `offset`, filling any gap before it with
    /// zeros.
    /// - Parameters:
    ///   - source: The bytes to write.
    ///   - offset: The position of the first byte.
    /// - Throws: ``InMemoryMovieFile/CapacityExceeded`` when the write would end past
    ///   ``InMemoryMovieFile/capacity``.
    package func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws {
        guard offset <= UInt64(capacity), UInt64(source.count) <= UInt64(capacity) - offset else { throw CapacityExceeded() }
        let start = Int(offset), end = start + source.count
        if bytes.count < end { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
        bytes.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[start..<end]).copyMemory(from: source) }
    }

    /// Does nothing: bytes in memory need no flushing.
    package func synchronize() throws {}

    /// Cuts ``InMemoryMovieFile/bytes`` to `size` bytes; a larger `size` leaves them as they are.
    /// - Parameter size: The length to cut to, in bytes.
    package func truncate(to size: UInt64) throws {
        if UInt64(bytes.count) > size { bytes.removeLast(bytes.count - Int(size)) }
    }
}
