/// Bytes that never change, shared by reference: an array's, or memory that another module
/// owns and releases when the last reference goes, such as a read-only file mapping.
///
/// Code that parses a large input (an H.264 stream) can keep positions into these bytes
/// instead of copies, and a writer can hand the same memory to the file system. The release
/// closure frees memory (`munmap`), the way `Data(bytesNoCopy:count:deallocator:)` does; it is
/// not the place to close a descriptor.
package final class ImmutableBytes: @unchecked Sendable {
    // @unchecked: both cases are immutable after `init`; the foreign memory is only read.
    private enum Storage {
        case array([UInt8])
        case foreign(UnsafeRawBufferPointer, release: @Sendable (UnsafeRawBufferPointer) -> Void)
    }

    private let storage: Storage

    /// Shares an array's bytes.
    package init(_ bytes: [UInt8]) {
        storage = .array(bytes)
    }

    /// Takes over memory that nothing will write while this object exists.
    /// - Parameters:
    ///   - buffer: the bytes; they must stay valid and unchanged until `release` is called.
    ///   - release: called once, with `buffer`, when the last reference goes.
    package init(unsafeUnchangingBuffer buffer: UnsafeRawBufferPointer,
                release: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        storage = .foreign(buffer, release: release)
    }

    deinit {
        if case .foreign(let buffer, let release) = storage { release(buffer) }
    }

    /// The number of bytes.
    package var count: Int {
        switch storage {
        case .array(let bytes): bytes.count
        case .foreign(let buffer, _): buffer.count
        }
    }

    /// Calls `body` with the bytes; the pointer is valid only during the call.
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        switch storage {
        case .foreign(let buffer, _):
            return try body(buffer)
        case .array(let bytes):
            let result = bytes.withUnsafeBytes { buffer in
                Swift.Result { () throws(Failure) -> Result in try body(buffer) }
            }
            return try result.get()
        }
    }

    /// A copy of the bytes in `range`.
    package subscript(range: Range<Int>) -> [UInt8] {
        withUnsafeBytes { Array($0[range]) }
    }
}
