/// The CRC-32C checksum (Castagnoli polynomial 0x1EDC6F41, reflected; the checksum of iSCSI,
/// ext4 and Btrfs), computed eight bytes at a time ("slicing by 8").
package struct CRC32C {
    private var state: UInt32 = 0xFFFF_FFFF

    package init() {}

    /// The checksum of the bytes given so far.
    package var value: UInt32 { ~state }

    /// Adds `bytes` to the checksum.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        var index = 0
        let count = bytes.count
        let tables = Self.tables
        while index + 8 <= count {
            let low = bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian ^ crc
            let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
            crc = tables[7 * 256 + Int(low & 0xFF)] ^ tables[6 * 256 + Int((low >> 8) & 0xFF)]
                ^ tables[5 * 256 + Int((low >> 16) & 0xFF)] ^ tables[4 * 256 + Int(low >> 24)]
                ^ tables[3 * 256 + Int(high & 0xFF)] ^ tables[2 * 256 + Int((high >> 8) & 0xFF)]
                ^ tables[256 + Int((high >> 16) & 0xFF)] ^ tables[Int(high >> 24)]
            index += 8
        }
        while index < count {
            crc = tables[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
            index += 1
        }
        state = crc
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32C()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    /// Eight 256-entry tables: the first the classic byte table, each next one a byte further.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()
}
