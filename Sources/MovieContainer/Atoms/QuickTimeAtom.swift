/// An atom this library writes and reads field by field.
///
/// Each conforming type follows one page of the QuickTime File Format and is named after what
/// it holds; its FourCC is ``type``. Writing produces the whole atom, header included;
/// reading takes the body (the bytes after size and type).
public protocol QuickTimeAtom: Hashable, Sendable {
    /// The atom's type code.
    static var type: FourCC { get }
    /// Writes everything after the atom's size and type.
    func writeBody(to writer: inout ByteWriter)
    /// Reads an atom from its body.
    init(body: inout ByteReader) throws(MovieFormatError)
}

extension QuickTimeAtom {
    /// Writes the whole atom: size, type and body.
    public func write(to writer: inout ByteWriter) throws {
        try writer.writeAtom(Self.type) { writeBody(to: &$0) }
    }

    /// The whole atom as bytes.
    public var encoded: [UInt8] {
        var w = ByteWriter()
        // A single atom this library builds is far below 4 GiB; writeAtom only throws beyond it.
        try? write(to: &w)
        return w.bytes
    }

    /// Reads an atom from its body bytes.
    public init(bodyBytes: ArraySlice<UInt8>) throws(MovieFormatError) {
        var reader = ByteReader(bodyBytes, context: Self.type)
        try self.init(body: &reader)
    }
}

/// Seconds since midnight, January 1, 1904, UTC: how QuickTime stores creation and
/// modification times.
public struct QuickTimeTimestamp: Hashable, Sendable, Comparable {
    /// Seconds since 1904-01-01 00:00:00 UTC.
    public var secondsSince1904: UInt64

    /// Seconds from 1904-01-01 to 1970-01-01.
    public static let unixEpochOffset: UInt64 = 2_082_844_800

    public init(secondsSince1904: UInt64) { self.secondsSince1904 = secondsSince1904 }

    /// Creates a timestamp from seconds since 1970-01-01 UTC.
    public init(unixSeconds: Int64) {
        secondsSince1904 = UInt64(max(0, unixSeconds + Int64(Self.unixEpochOffset)))
    }

    /// Seconds since 1970-01-01 UTC.
    public var unixSeconds: Int64 { Int64(secondsSince1904) - Int64(Self.unixEpochOffset) }

    public static func < (l: Self, r: Self) -> Bool { l.secondsSince1904 < r.secondsSince1904 }
}

/// Picks version 1 (64-bit fields) only when a value does not fit version 0's 32 bits.
func fullAtomVersion(_ values: UInt64...) -> UInt8 {
    values.contains { $0 > UInt64(UInt32.max) } ? 1 : 0
}
