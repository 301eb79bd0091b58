/// A growable buffer that writes big-endian integers and atoms.
///
/// Atoms are written with ``writeAtom(_:_:)``: the size field is reserved, the body is
/// written, then the size is back-patched, so an atom's size can never disagree with its body.
///
/// Inside the library a writer can also reserve *external spans*: room for bytes that are not
/// held here but copied in when the result is stored (a long recording's sample tables, which
/// wait in scratch storage). Sizes and offsets count them; ``bytes`` holds everything else.
package struct ByteWriter: Sendable {
    /// The bytes written so far, without any external span.
    package private(set) var bytes: [UInt8]

    /// Room reserved for bytes supplied when the result is stored, in order.
    struct ExternalSpan: Hashable, Sendable {
        /// Where the span starts among the written bytes, counting earlier spans.
        var offset: Int
        /// Where its bytes go in ``ByteWriter/bytes``: before the byte at this index.
        var insertionIndex: Int
        var count: Int
        /// The caller's number for what fills it.
        var source: Int
    }

    private(set) var externalSpans: [ExternalSpan] = []
    private var externalByteCount = 0

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written so far.
    package var count: Int { bytes.count + externalByteCount }

    /// Reserves `count` bytes that `source` supplies when the result is stored. Nothing is
    /// reserved for an empty span.
    mutating func reserveExternal(_ count: Int, source: Int) {
        guard count > 0 else { return }
        externalSpans.append(ExternalSpan(offset: self.count, insertionIndex: bytes.count, count: count, source: source))
        externalByteCount += count
    }

    package mutating func write(_ value: UInt8) { bytes.append(value) }

    // Each integer is one append of its big-endian bytes: one capacity and uniqueness check
    // instead of one per byte (writing fragment headers showed in the muxer's profile).
    package mutating func write(_ value: UInt16) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: Int16) { write(UInt16(bitPattern: value)) }
    package mutating func write(_ value: Int32) { write(UInt32(bitPattern: value)) }
    package mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }
    package mutating func write(_ value: FourCC) { write(value.rawValue) }

    package mutating func write<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        self.bytes.append(contentsOf: bytes)
    }

    /// Writes `count` bytes that `fill` stores in place, such as a table's entries: one capacity
    /// and uniqueness check for the whole table instead of one per field.
    package mutating func write(count: Int, filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { fill(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Writes `count` zero bytes.
    package mutating func writeZeros(_ count: Int) {
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// Writes the version byte and 24 flag bits that begin every full atom.
    package mutating func writeVersionAndFlags(version: UInt8, flags: UInt32) {
        write(UInt32(version) << 24 | (flags & 0x00FF_FFFF))
    }

    /// Writes a Pascal string (a length byte, then the text) padded with zeros to `fieldSize`
    /// bytes when `fieldSize` is given. Text too long for the field is cut at a character edge.
    package mutating func writePascalString(_ text: String, fieldSize: Int? = nil) {
        var utf8 = Array(text.utf8)
        let limit = min(255, (fieldSize ?? 256) - 1)
        if utf8.count > limit {
            utf8 = Array(utf8.prefix(limit))
            while let last = utf8.last, last & 0xC0 == 0x80 { utf8.removeLast() }  // continuation bytes
            if let last = utf8.last, last >= 0xC0 { utf8.removeLast() }  // a lead byte without its tail
        }
        write(UInt8(utf8.count))
        write(contentsOf: utf8)
        if let fieldSize { writeZeros(fieldSize - 1 - utf8.count) }
    }

    /// Writes an atom: a 32-bit size, the type, then whatever `body` writes.
    ///
    /// - Throws: ``MovieFormatError`` when the atom would exceed 4 GiB, or whatever `body` throws.
    package mutating func writeAtom(_ type: FourCC, _ body: (inout ByteWriter) throws -> Void) throws {
        let start = count
        write(UInt32(0))
        write(type)
        try body(&self)
        let size = count - start
        guard size <= Int(UInt32.max) else {
            throw MovieFormatError.atomTooLarge(type, size: UInt64(size))
        }
        patch(UInt32(size), at: start)
    }

    /// Overwrites four bytes at `offset` (as counted by ``count``) with `value`.
    package mutating func patch(_ value: UInt32, at offset: Int) {
        var index = offset
        for span in externalSpans where span.offset < offset { index -= span.count }  // a patch never falls inside one
        bytes[index] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[index + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[index + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[index + 3] = UInt8(truncatingIfNeeded: value)
    }
}
