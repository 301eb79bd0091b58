import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One plane of a picture in memory.
public struct PlaneView: @unchecked Sendable {
    // @unchecked: the memory is owned by the frame, which is immutable once delivered.
    /// The address of the plane's first row.
    public let baseAddress: UnsafeRawPointer
    /// Bytes from the start of one row to the next.
    public let bytesPerRow: Int
    /// The number of rows.
    public let height: Int
}
