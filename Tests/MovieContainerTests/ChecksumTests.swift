import Testing
@testable import MovieContainer

/// CRC-32C against its published check value, and the checksum atom's bytes.
@Suite struct ChecksumTests {
    @Test func crc32cCheckValue() {
        // The check value of CRC-32C (RFC 3720, appendix B.4; the "123456789" test of every CRC catalogue).
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
        // 32 bytes of zeros, RFC 3720 B.4: 0x8A9136AA.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    }

    @Test func piecesGiveTheSameChecksumAsTheWhole() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var crc = CRC32C()
        for cut in stride(from: 0, to: bytes.count, by: 137) {
            bytes[cut..<min(bytes.count, cut + 137)].withUnsafeBytes { crc.update($0) }
        }
        #expect(crc.value == CRC32C.checksum(bytes))
    }

    @Test func checksumAtomBytes() {
        var w = ByteWriter()
        MediaChecksumAtom(checksum: 0xE306_9283, mediaLength: 0x1_0000_0002).write(to: &w)
        let expected: [UInt8] = [0, 0, 0, 40] + Array("uuid".utf8) + MediaChecksumAtom.uuid
            + [0, 0, 0, 0] + [0xE3, 0x06, 0x92, 0x83] + [0, 0, 0, 1, 0, 0, 0, 2]
        #expect(w.bytes == expected)
        #expect(MediaChecksumAtom(atom: w.bytes) == MediaChecksumAtom(checksum: 0xE306_9283, mediaLength: 0x1_0000_0002))
    }
}
