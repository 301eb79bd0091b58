

/// A source over bytes in memory.
public final class InMemoryMovieSource: MovieByteSource {
    /// The movie's bytes.
    public let bytes: [UInt8]

    /// Creates a source over bytes in memory.
    /// - Parameter bytes: The movie's bytes.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes in ``InMemoryMovieSource/bytes``.
    public var size: UInt64 { UInt64(bytes.count) }

    /// Returns up to `count` bytes starting at `offset`.
    /// - Parameters:
    ///   - offset: The position of the first byte.
    ///   - count: The most bytes to return.
    /// - Returns: The bytes; fewer than `count` at the end of the data, none past it.
    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < UInt64(bytes.count) else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + count)])
    }
}
