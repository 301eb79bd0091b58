/// A checksum of a movie fragment, kept as the last atom of its `moof` so that repair can tell a
/// fragment that reached the disk from one a power cut left partly lost or zero-filled.
///
/// It is a `uuid` atom (QuickTime File Format, "Atoms"; ISO/IEC 14496-12 §4.2 user extensions),
/// which players skip: 16 bytes of this library's UUID, a version and flags (0), the CRC-32C of
/// the `moof` before this atom followed by the `mdat` payload, and that payload's length as 64
/// bits.
package struct MediaChecksumAtom: Hashable, Sendable {
    /// This library's UUID for the atom: 4d6f7672-6563-4d65-6469-61437263333263 ("MovrecMediaCrc32c").
    package static let uuid: [UInt8] = [0x4D, 0x6F, 0x76, 0x72, 0x65, 0x63, 0x4D, 0x65,
                                        0x64, 0x69, 0x61, 0x43, 0x72, 0x63, 0x33, 0x32]
    /// The atom's size: header 8, UUID 16, version and flags 4, checksum 4, length 8.
    package static let size = 40

    /// Where the checksum lies in the atom.
    package static let checksumPosition = 28

    /// The CRC-32C of the `moof` before this atom and the media.
    package var checksum: UInt32
    /// The number of media bytes it covers.
    package var mediaLength: UInt64

    package init(checksum: UInt32, mediaLength: UInt64) {
        self.checksum = checksum
        self.mediaLength = mediaLength
    }

    /// Writes the atom.
    package func write(to w: inout ByteWriter) {
        w.write(UInt32(Self.size))
        w.write("uuid" as FourCC)
        w.write(contentsOf: Self.uuid)
        w.write(UInt32(0))
        w.write(checksum)
        w.write(mediaLength)
    }

    /// Reads the atom from `bytes`, the whole atom; `nil` when it is not this library's.
    package init?(atom bytes: [UInt8]) {
        guard bytes.count == Self.size, Array(bytes[8..<24]) == Self.uuid else { return nil }
        func number(_ at: Int, _ count: Int) -> UInt64 { bytes[at..<at + count].reduce(0) { $0 << 8 | UInt64($1) } }
        checksum = UInt32(number(28, 4))
        mediaLength = number(32, 8)
    }
}
