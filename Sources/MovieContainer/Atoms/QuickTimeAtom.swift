/// An atom this library writes and reads field by field.
///
/// Each conforming type follows one page of the QuickTime File Format and is named after what
/// it holds; its FourCC is ``type``. Writing produces the whole atom, header included;
/// reading takes the body (the bytes after size and type).
package protocol QuickTimeAtom: Hashable, Sendable {
    /// The atom's type code.
    static var type: FourCC { get }
    /// Writes everything after the atom's size and type.
    func writeBody(to writer: inout ByteWriter)
    /// Reads an atom from its body.
    init(body: inout ByteReader) throws(MovieFormatError)
}

extension QuickTimeAtom {
    /// Writes the whole atom: size, type and body.
    package func write(to writer: inout ByteWriter) throws {
        try writer.writeAtom(Self.type) { writeBody(to: &$0) }
    }

    /// The whole atom as bytes.
    package var encoded: [UInt8] {
        var w = ByteWriter()
        // A single atom this library builds is far below 4 GiB; writeAtom only throws beyond it.
        try? write(to: &w)
        return w.bytes
    }

    /// Reads an atom from its body bytes.
    package init(bodyBytes: ArraySlice<UInt8>) throws(MovieFormatError) {
        var reader = ByteReader(bodyBytes, context: Self.type)
        try self.init(body: &reader)
    }
}

/// Picks version 1 (64-bit fields) only when a value does not fit version 0's 32 bits.
func fullAtomVersion(_ values: UInt64...) -> UInt8 {
    values.contains { $0 > UInt64(UInt32.max) } ? 1 : 0
}
