/// Consecutive media writes collected into one gathered write of up to a few megabytes.
///
/// A muxer writes a chunk per track every half second; at small frame sizes that is hundreds
/// of writes of tens of kilobytes, and each write costs the file system a fixed amount (locks,
/// the modification time, journal bookkeeping). Borrowed media (see ``PendingMedia``) stays
/// where it is until the batch is written; the few bytes the writer owns, such as NAL lengths
/// and `mdat` headers, are copied into a staging area that lives as long as the batch.
///
/// Its stored properties are `@exclusivity(unchecked)`, for the reason given at `TrackBuilder`.
final class MediaWriteBatch {
    /// The most bytes a batch holds before it is written.
    static let maximumByteCount = 4 << 20
    /// The most buffers a batch holds before it is written (a `pwritev` takes 1024).
    static let maximumBufferCount = 1000

    /// Where the batch goes in the file.
    @exclusivity(unchecked) private(set) var offset: UInt64 = 0
    /// The number of bytes in the batch.
    @exclusivity(unchecked) private(set) var count = 0
    /// The batch's buffers in file order.
    @exclusivity(unchecked) private(set) var buffers: [UnsafeRawBufferPointer] = []
    private let staging: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var stagingUsed = 0

    init(stagingCapacity: Int = 64 << 10) {
        staging = .allocate(byteCount: stagingCapacity, alignment: 16)
        buffers.reserveCapacity(Self.maximumBufferCount + 64)
    }

    deinit {
        staging.deallocate()
    }

    var isEmpty: Bool { buffers.isEmpty }

    /// A Boolean value that indicates whether the batch should be written now.
    var isFull: Bool { count >= Self.maximumByteCount || buffers.count >= Self.maximumBufferCount }

    /// The room left for copied bytes.
    var stagingSpace: Int { staging.count - stagingUsed }

    /// A Boolean value that indicates whether bytes for `offset` continue the batch.
    func continues(at offset: UInt64) -> Bool { isEmpty || offset == self.offset + UInt64(count) }

    /// Sets where an empty batch goes in the file.
    func begin(at offset: UInt64) {
        precondition(isEmpty, "a batch in progress continues where it is")
        self.offset = offset
    }

    /// Adds memory that stays valid until the batch is written.
    func append(borrowing bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        buffers.append(bytes)
        count += bytes.count
    }

    /// Adds a copy of `bytes`.
    /// - Precondition: `bytes.count <= stagingSpace`.
    func append(copying bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        precondition(bytes.count <= stagingSpace, "the staging area is full")
        let copy = UnsafeMutableRawBufferPointer(rebasing: staging[stagingUsed..<stagingUsed + bytes.count])
        copy.copyMemory(from: bytes)
        stagingUsed += bytes.count
        append(borrowing: UnsafeRawBufferPointer(copy))
    }

    /// Empties the batch once it is written (or has failed).
    func removeAll() {
        buffers.removeAll(keepingCapacity: true)
        count = 0
        stagingUsed = 0
    }
}
