/// The header of one frame of vicodec's FWHT bitstream (`struct fwht_cframe_hdr` in the kernel's
/// `drivers/media/test-drivers/vicodec/codec-fwht.h`): 44 bytes of big-endian 32-bit fields, two
/// magic words first, then the version, the visible size, the flags (bit 10: an intra frame),
/// four colour fields and the size of the payload after the header.
struct FWHTFrame {
    static let headerSize = 44
    static let intraFlag: UInt32 = 0x400

    let width: Int
    let height: Int
    let flags: UInt32
    let payloadSize: Int

    var isIntra: Bool { flags & Self.intraFlag != 0 }
    /// Whether the chroma planes have every row (`V4L2_FWHT_FL_CHROMA_FULL_HEIGHT`): coded from a
    /// 4:2:2 picture such as YUYV, not from 4:2:0.
    var hasFullHeightChroma: Bool { flags & 0x80 != 0 }

    /// Reads the header at the start of `bytes`; nil when it is not one (wrong magic, version or
    /// a payload size that does not match the bytes).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.headerSize else { return nil }
        func word(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        guard word(0) == 0x4F4F_4F4F, word(4) == 0xFFFF_FFFF, word(8) == 3 else { return nil }
        width = Int(word(12))
        height = Int(word(16))
        flags = word(20)
        payloadSize = Int(word(40))
        guard Self.headerSize + payloadSize == bytes.count else { return nil }
    }
}
