import Testing
@testable import MovieContainer

/// The display-orientation SEI's bytes, against those FFmpeg 5.1's `h264_metadata` bitstream
/// filter writes (`display_orientation=insert:rotate=-90` for a quarter turn clockwise) and
/// against the HEVC syntax's first edition, which FFmpeg 5.1 reads.
@Suite struct DisplayOrientationSEITests {
    @Test func aQuarterTurnClockwise() throws {
        let quarter = try VideoOrientation(rotationAngle: 90)
        #expect(DisplayOrientationSEI.h264(quarter) == [0x06, 0x2F, 0x03, 0x18, 0x00, 0x09, 0x80])
        #expect(DisplayOrientationSEI.hevc(quarter) == [0x4E, 0x01, 0x2F, 0x03, 0x18, 0x00, 0x18, 0x80])
    }

    @Test func everyOrientation() throws {
        // anticlockwise_rotation in 1/65536 turns: unmirrored, the clockwise angle's complement;
        // mirrored (flip first, then turn), the angle itself.
        let expected: [(Int, Bool, UInt32)] = [(0, false, 0), (90, false, 0xC000), (180, false, 0x8000), (270, false, 0x4000),
                                               (0, true, 0), (90, true, 0x4000), (180, true, 0x8000), (270, true, 0xC000)]
        for (angle, mirrored, rotation) in expected {
            let sei = DisplayOrientationSEI.h264(try VideoOrientation(rotationAngle: Double(angle), isMirrored: mirrored))
            // Payload bits: cancel, hor_flip, ver_flip, then the rotation's 16 bits.
            let bits = UInt32(sei[3]) << 16 | UInt32(sei[4]) << 8 | UInt32(sei[5])
            #expect((bits >> 22) & 1 == (mirrored ? 1 : 0) && (bits >> 5) & 0xFFFF == rotation, "\(angle) \(mirrored): \(sei)")
            #expect(!sei.windowsContainEscapable, "\(angle) \(mirrored): no emulation prevention needed or it is in place")
        }
    }
}

private extension Array where Element == UInt8 {
    /// Whether two zero bytes are followed by a byte of 3 or less anywhere.
    var windowsContainEscapable: Bool {
        indices.dropFirst(2).contains { self[$0 - 2] == 0 && self[$0 - 1] == 0 && self[$0] <= 3 }
    }
}
