/// A destination for a movie's bytes: a file, in the library's `MovieRecorder` module.
///
/// The writer addresses every write by absolute offset, so a sink can be a plain file written
/// with `pwrite`. A write past the current end leaves a hole that reads as zeros.
public protocol MovieByteSink: AnyObject {
    /// Writes `bytes` at `offset`.
    /// - Throws: whatever the underlying storage reports, such as a full disk.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Makes everything written so far durable (for a file: `fdatasync`).
    func synchronize() throws
    /// Cuts the data to `size` bytes (for a file: `ftruncate`).
    func truncate(to size: UInt64) throws
}

extension MovieByteSink {
    /// Writes an array's bytes at `offset`.
    public func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }
}

/// A sink that keeps the movie in memory, for tests and for movies built before being stored.
public final class InMemoryMovieSink: MovieByteSink {
    /// The movie's bytes.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws {
        let start = Int(offset)
        if bytes.count < start + source.count { bytes.append(contentsOf: repeatElement(0, count: start + source.count - bytes.count)) }
        bytes.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[start..<start + source.count]).copyMemory(from: source) }
    }

    public func synchronize() throws {}

    public func truncate(to size: UInt64) throws {
        if UInt64(bytes.count) > size { bytes.removeLast(bytes.count - Int(size)) }
    }
}
