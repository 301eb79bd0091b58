/// Where a reader gets a movie's bytes: a file, in the library's `MovieRecorder` module.
public protocol MovieByteSource: AnyObject {
    /// The number of bytes available.
    var size: UInt64 { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the data.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}

/// A source over bytes in memory.
public final class InMemoryMovieSource: MovieByteSource {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < UInt64(bytes.count) else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + count)])
    }
}
