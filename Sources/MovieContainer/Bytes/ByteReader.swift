/// A bounds-checked cursor over bytes that reads big-endian integers.
///
/// Every read checks the remaining length first and throws ``MovieFormatError`` naming the
/// atom being read, so hostile input can never read out of bounds.
package struct ByteReader: Sendable {
    @usableFromInline let bytes: ArraySlice<UInt8>
    /// The index of the next byte to read.
    package private(set) var position: Int
    /// The atom this reader is reading, named in errors.
    package let context: FourCC

    package init(_ bytes: ArraySlice<UInt8>, context: FourCC) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.context = context
    }

    package init(_ bytes: [UInt8], context: FourCC) {
        self.init(bytes[...], context: context)
    }

    /// The number of bytes left.
    package var remaining: Int { bytes.endIndex - position }

    @inline(__always)
    mutating func take(_ count: Int) throws(MovieFormatError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .truncatedAtom(context, needed: count, available: remaining)
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    package mutating func readUInt8() throws(MovieFormatError) -> UInt8 {
        try take(1).first!
    }

    package mutating func readUInt16() throws(MovieFormatError) -> UInt16 {
        let b = try take(2)
        return UInt16(b[b.startIndex]) << 8 | UInt16(b[b.startIndex + 1])
    }

    package mutating func readUInt24() throws(MovieFormatError) -> UInt32 {
        let b = try take(3)
        return UInt32(b[b.startIndex]) << 16 | UInt32(b[b.startIndex + 1]) << 8 | UInt32(b[b.startIndex + 2])
    }

    package mutating func readUInt32() throws(MovieFormatError) -> UInt32 {
        let b = try take(4)
        let i = b.startIndex
        return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    package mutating func readUInt64() throws(MovieFormatError) -> UInt64 {
        let high = try readUInt32()
        return UInt64(high) << 32 | UInt64(try readUInt32())
    }

    package mutating func readInt16() throws(MovieFormatError) -> Int16 { Int16(bitPattern: try readUInt16()) }
    package mutating func readInt32() throws(MovieFormatError) -> Int32 { Int32(bitPattern: try readUInt32()) }
    package mutating func readInt64() throws(MovieFormatError) -> Int64 { Int64(bitPattern: try readUInt64()) }
    package mutating func readFourCC() throws(MovieFormatError) -> FourCC { FourCC(rawValue: try readUInt32()) }

    package mutating func readBytes(_ count: Int) throws(MovieFormatError) -> [UInt8] { Array(try take(count)) }

    /// Returns a reader over the next `count` bytes and skips them here.
    package mutating func subReader(_ count: Int, context: FourCC) throws(MovieFormatError) -> ByteReader {
        ByteReader(try take(count), context: context)
    }

    package mutating func skip(_ count: Int) throws(MovieFormatError) { _ = try take(count) }

    /// The bytes not yet read, without consuming them.
    package var rest: ArraySlice<UInt8> { bytes[position...] }

    /// Reads a Pascal string: a length byte and that many bytes of text.
    package mutating func readPascalString() throws(MovieFormatError) -> String {
        let length = Int(try readUInt8())
        return String(decoding: try take(length), as: UTF8.self)
    }

    /// Reads the version byte and flags of a full atom.
    package mutating func readVersionAndFlags() throws(MovieFormatError) -> (version: UInt8, flags: UInt32) {
        let word = try readUInt32()
        return (UInt8(word >> 24), word & 0x00FF_FFFF)
    }

    /// Checks that a table of `count` entries of `entrySize` bytes fits in what is left, before
    /// anything is allocated for it.
    package func requireTable(count: UInt32, entrySize: Int) throws(MovieFormatError) {
        let needed = UInt64(count) * UInt64(entrySize)
        guard needed <= UInt64(remaining) else {
            throw .tableLargerThanAtom(context, entries: count, available: remaining)
        }
    }
}
