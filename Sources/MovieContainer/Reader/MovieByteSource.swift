

/// Where a reader gets a movie's bytes: a file, in the library's `MovieRecorder` module.
public protocol MovieByteSource: AnyObject {
    /// The number of bytes available.
    var size: UInt64 { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the data.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}
