/// The bytes of a track's samples that are waiting to be written, as a chunk or as a
/// fragment's media.
///
/// Samples appended by copy go into one owned buffer. Samples appended without copying (by a
/// muxer whose input stays mapped until the movie is finished) are kept as the caller's
/// memory, so the bytes go from the input to the file system in one gathered write
/// (`pwritev`) and are never copied in user space. Omitted samples (``MovieWriter/omitsMediaData``)
/// are only counted; the writer writes nothing for them.
struct PendingMedia {
    private enum Piece {
        case owned(Range<Int>)
        case borrowed(UnsafeRawBufferPointer)
        case omitted(Int)

        var count: Int {
            switch self {
            case .owned(let range): range.count
            case .borrowed(let buffer): buffer.count
            case .omitted(let count): count
            }
        }
    }

    /// The number of pending bytes.
    private(set) var count = 0
    private var owned: [UInt8] = []
    /// The pending bytes in order. Neighbours that are contiguous are merged, so media appended
    /// only by copy is always a single piece.
    private var pieces: [Piece] = []
    /// Reused for the buffers of each gathered write.
    private var gathered: [UnsafeRawBufferPointer] = []

    var isEmpty: Bool { count == 0 }

    /// Appends a copy of `bytes`.
    mutating func append(copying bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let start = owned.count
        owned.append(contentsOf: bytes)
        if case .owned(let last) = pieces.last, last.upperBound == start {
            pieces[pieces.count - 1] = .owned(last.lowerBound..<owned.count)
        } else {
            pieces.append(.owned(start..<owned.count))
        }
        count += bytes.count
    }

    /// Appends a 32-bit big-endian integer, such as the length before a NAL unit.
    mutating func append(bigEndian value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { append(copying: $0) }
    }

    /// Appends `bytes` without copying them: they are read when the media is written.
    mutating func append(borrowing bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if case .borrowed(let last) = pieces.last, last.baseAddress! + last.count == base {
            pieces[pieces.count - 1] = .borrowed(UnsafeRawBufferPointer(start: last.baseAddress, count: last.count + bytes.count))
        } else {
            pieces.append(.borrowed(bytes))
        }
        count += bytes.count
    }

    /// The number of copied bytes among the first `prefix` pending bytes.
    func copiedCount(prefix: Int) -> Int {
        var left = prefix, copied = 0
        for piece in pieces where left > 0 {
            let take = min(left, piece.count)
            if case .owned = piece { copied += take }
            left -= take
        }
        return copied
    }

    /// Counts `count` bytes that are never written.
    mutating func append(omitting count: Int) {
        guard count > 0 else { return }
        if case .omitted(let last) = pieces.last {
            pieces[pieces.count - 1] = .omitted(last + count)
        } else {
            pieces.append(.omitted(count))
        }
        self.count += count
    }

    /// Calls `body` with each buffer that holds the first `prefix` pending bytes, in order
    /// (omitted bytes have none), and
    /// whether it is borrowed (stays valid until the writer finishes) or copied (valid only
    /// during the call).
    func forEachBuffer(prefix: Int, _ body: (UnsafeRawBufferPointer, _ isBorrowed: Bool) throws -> Void) rethrows {
        precondition(prefix <= count)
        try owned.withUnsafeBytes { ownedBytes in
            var left = prefix
            for piece in pieces where left > 0 {
                let take = min(left, piece.count)
                switch piece {
                case .owned(let range):
                    try body(UnsafeRawBufferPointer(rebasing: ownedBytes[range.lowerBound..<range.lowerBound + take]), false)
                case .borrowed(let buffer):
                    try body(UnsafeRawBufferPointer(rebasing: buffer[..<take]), true)
                case .omitted:
                    break
                }
                left -= take
            }
        }
    }

    /// Calls `body` with the buffers that hold the first `prefix` pending bytes, in order
    /// (omitted bytes have none).
    mutating func withBuffers<Result>(prefix: Int,
                                      _ body: ([UnsafeRawBufferPointer]) throws -> Result) rethrows -> Result {
        precondition(prefix <= count)
        var gathered = self.gathered
        self.gathered = []
        defer {
            gathered.removeAll(keepingCapacity: true)
            self.gathered = gathered
        }
        return try owned.withUnsafeBytes { ownedBytes in
            var left = prefix
            for piece in pieces where left > 0 {
                let take = min(left, piece.count)
                switch piece {
                case .owned(let range):
                    gathered.append(UnsafeRawBufferPointer(rebasing: ownedBytes[range.lowerBound..<range.lowerBound + take]))
                case .borrowed(let buffer):
                    gathered.append(UnsafeRawBufferPointer(rebasing: buffer[..<take]))
                case .omitted:
                    break
                }
                left -= take
            }
            return try body(gathered)
        }
    }

    /// Removes the first `bytes` pending bytes once they are written.
    mutating func removeFirst(_ bytes: Int) {
        precondition(bytes <= count)
        if bytes == count {
            removeAll()
            return
        }
        var left = bytes
        var dropped = 0
        while left > 0 {
            let piece = pieces[dropped]
            if piece.count <= left {
                left -= piece.count
                dropped += 1
                continue
            }
            switch piece {
            case .owned(let range): pieces[dropped] = .owned(range.lowerBound + left..<range.upperBound)
            case .borrowed(let buffer): pieces[dropped] = .borrowed(UnsafeRawBufferPointer(rebasing: buffer[left...]))
            case .omitted(let count): pieces[dropped] = .omitted(count - left)
            }
            left = 0
        }
        pieces.removeFirst(dropped)
        count -= bytes
        // Owned bytes before the first piece that still uses them are no longer needed.
        let firstOwned = pieces.lazy.compactMap { piece -> Int? in
            if case .owned(let range) = piece { return range.lowerBound } else { return nil }
        }.first ?? owned.count
        if firstOwned > 0 {
            owned.removeFirst(firstOwned)
            pieces = pieces.map { piece in
                if case .owned(let range) = piece { return .owned(range.lowerBound - firstOwned..<range.upperBound - firstOwned) }
                return piece
            }
        }
    }

    /// Removes everything, keeping the capacity for the next chunk.
    mutating func removeAll() {
        owned.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
        count = 0
    }
}
