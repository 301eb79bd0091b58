import MovieContainer
import MoviePlatform
import MovieCapture

/// An image file directory (TIFF 6.0 §2): a 2-byte entry count, 12-byte entries in ascending
/// tag order, a 4-byte offset of the next directory (0: none), then the values that do not fit
/// in 4 bytes, each starting on an even offset.
package struct TIFFDirectory: Hashable, Sendable {
    /// The fields, in ascending tag order.
    package var fields: [TIFFField]

    /// The bytes of the values stored after the directory, each padded to an even length.
    private var externalValueSize: Int {
        fields.map(\.valueBytes.count).filter { $0 > 4 }.reduce(0) { $0 + ($1 + 1) / 2 * 2 }
    }

    /// The directory's size in bytes, with its out-of-line values.
    package var byteCount: Int { 2 + 12 * fields.count + 4 + externalValueSize }

    /// Writes the directory as it will sit at `offset` from the start of the TIFF header;
    /// offsets of out-of-line values are computed from it.
    /// - Parameters:
    ///   - offset: Where the directory starts, counted from the TIFF header's first byte.
    ///   - nextDirectoryOffset: Where the next directory in the chain starts (IFD0 links to
    ///     IFD1, the thumbnail's, this way: Exif 2.32 §4.6.2), or 0 for none. A sub-directory
    ///     such as the Exif IFD is reached through a pointer tag instead and ends the chain.
    ///   - writer: The bytes being written; the directory is appended.
    package func write(at offset: Int, nextDirectoryOffset: Int = 0, into writer: inout ByteWriter) {
        precondition(zip(fields, fields.dropFirst()).allSatisfy { $0.tag < $1.tag }, "TIFF fields must be in ascending tag order")
        var external: [UInt8] = []
        let externalStart = offset + 2 + 12 * fields.count + 4
        writer.write(UInt16(fields.count))
        for field in fields {
            writer.write(field.tag)
            writer.write(field.type)
            writer.write(field.count)
            let bytes = field.valueBytes
            if bytes.count <= 4 {
                // Left-justified in the 4-byte field (TIFF 6.0 §2, "Value/Offset").
                writer.write(contentsOf: bytes + [UInt8](repeating: 0, count: 4 - bytes.count))
            } else {
                writer.write(UInt32(externalStart + external.count))
                external += bytes
                if external.count % 2 == 1 { external.append(0) }
            }
        }
        writer.write(UInt32(nextDirectoryOffset))
        writer.write(contentsOf: external)
    }
}
