/// The display-orientation SEI message (payload type 47) that asks a decoder to show a picture
/// turned and flipped: H.264 D.1.27 and HEVC's first edition, whose syntax differs at the end.
///
/// A stream without a container (RTP) has no track matrix; this is where its orientation goes.
/// FFmpeg (5.1) turns the decoded picture by it; GStreamer 1.22 and VLC 3.0 ignore it. The SEI
/// flips first and then turns anticlockwise, so an orientation mirrored after its clockwise turn
/// is the same flip followed by the same angle anticlockwise.
package enum DisplayOrientationSEI {
    /// The whole SEI NAL unit (no start code or length) for H.264.
    package static func h264(_ orientation: VideoOrientation) -> [UInt8] {
        var bits = fields(orientation)
        bits.append(bits: 0b010, count: 3)  // display_orientation_repetition_period ue(v) = 1: until the next IDR
        bits.append(bits: 0, count: 1)      // display_orientation_extension_flag
        return [0x06] + message(bits)
    }

    /// The whole prefix SEI NAL unit (no start code or length) for HEVC, in the first
    /// edition's syntax that FFmpeg 5.1 reads.
    package static func hevc(_ orientation: VideoOrientation) -> [UInt8] {
        var bits = fields(orientation)
        bits.append(bits: 1, count: 1)  // display_orientation_persistence_flag: until the next IRAP
        return [0x4E, 0x01] + message(bits)
    }

    /// cancel, hor_flip, ver_flip and anticlockwise_rotation (units of 360/2^16 degrees).
    private static func fields(_ orientation: VideoOrientation) -> BitPacker {
        let clockwise = orientation.rotationAngle
        let anticlockwise = orientation.isMirrored ? clockwise : (360 - clockwise) % 360
        var bits = BitPacker()
        bits.append(bits: 0, count: 1)
        bits.append(bits: orientation.isMirrored ? 1 : 0, count: 1)
        bits.append(bits: 0, count: 1)
        bits.append(bits: UInt32(anticlockwise * 65536 / 360), count: 16)
        return bits
    }

    /// payloadType 47, its size, the payload aligned with a one bit, and the RBSP's trailing
    /// bits, with emulation prevention.
    private static func message(_ payload: BitPacker) -> [UInt8] {
        var payload = payload
        payload.append(bits: 1, count: 1)
        let body = payload.bytes
        return escaped([47, UInt8(body.count)] + body + [0x80])
    }

    /// Inserts 0x03 after two zero bytes followed by a byte of 3 or less.
    private static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Bits written most significant first, the last byte padded with zeros.
    private struct BitPacker {
        private(set) var bytes: [UInt8] = []
        private var used = 8

        mutating func append(bits value: UInt32, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) {
                if used == 8 {
                    bytes.append(0)
                    used = 0
                }
                bytes[bytes.count - 1] |= UInt8((value >> UInt32(shift)) & 1) << UInt8(7 - used)
                used += 1
            }
        }
    }
}
