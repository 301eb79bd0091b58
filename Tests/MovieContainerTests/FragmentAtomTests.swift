import Testing
@testable import MovieContainer

/// Movie fragment atoms against bytes written out from ISO/IEC 14496-12 §8.8, and back.
@Suite struct FragmentAtomTests {
    func bytes(_ text: String) -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }
        return stride(from: 0, to: digits.count, by: 2).map {
            let start = digits.index(digits.startIndex, offsetBy: $0)
            return UInt8(digits[start..<digits.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    func roundTrip<A: QuickTimeAtom>(_ atom: A, _ expected: String) throws {
        #expect(atom.encoded == bytes(expected))
        #expect(try A(bodyBytes: atom.encoded.dropFirst(8)) == atom)
    }

    @Test func trex() throws {
        try roundTrip(TrackExtendsAtom(trackID: 2),
                      "00000020 74726578 00000000" + "00000002" + "00000001" + "00000000 00000000 00000000")
    }

    @Test func mfhd() throws {
        try roundTrip(MovieFragmentHeaderAtom(sequenceNumber: 7), "00000010 6D666864 00000000 00000007")
    }

    @Test func tfhdForPCMCarriesDefaults() throws {
        // flags 0x020038: default-base-is-moof | default flags | default size | default duration
        try roundTrip(TrackFragmentHeaderAtom(trackID: 2, defaultSampleDuration: 1, defaultSampleSize: 4, defaultSampleFlags: 0x0200_0000),
                      "0000001C 74666864 00020038 00000002" + "00000001" + "00000004" + "02000000")
    }

    @Test func tfdtIsVersion1() throws {
        try roundTrip(TrackFragmentDecodeTimeAtom(baseMediaDecodeTime: 0x1_0000_0000), "00000014 74666474 01000000 0000000100000000")
    }

    @Test func trunForVideoAndForPCM() throws {
        let video = TrackRunAtom(dataOffset: 0x100, sampleCount: 2,
                                 sampleFields: TrackRunAtom.durationPresent | TrackRunAtom.sizePresent | TrackRunAtom.flagsPresent
                                     | TrackRunAtom.compositionOffsetPresent,
                                 samples: [.init(duration: 20, size: 1000, flags: TrackRunAtom.syncSampleFlags, compositionOffset: 40),
                                           .init(duration: 20, size: 300, flags: TrackRunAtom.nonSyncSampleFlags, compositionOffset: 0)])
        try roundTrip(video, "00000034 7472756E 00000F01 00000002 00000100"
                      + "00000014 000003E8 02000000 00000028"
                      + "00000014 0000012C 01010000 00000000")
        // PCM: one run, no per-sample entries — the tfhd defaults describe every frame.
        try roundTrip(TrackRunAtom(dataOffset: 8, sampleCount: 48000, sampleFields: 0, samples: []),
                      "00000014 7472756E 00000001 0000BB80 00000008")
    }

    @Test func trunWithSomeFieldsAndANegativeOffsetIsVersion1() throws {
        // Sizes and composition offsets only; a negative offset needs version 1 (signed).
        let run = TrackRunAtom(dataOffset: -4, sampleCount: 2,
                               sampleFields: TrackRunAtom.sizePresent | TrackRunAtom.compositionOffsetPresent,
                               samples: [.init(size: 7, compositionOffset: -2), .init(size: 0x0102_0304, compositionOffset: 3)])
        try roundTrip(run, "00000024 7472756E 01000A01 00000002 FFFFFFFC"
                      + "00000007 FFFFFFFE" + "01020304 00000003")
    }

    @Test func trunDataOffsetLiesWhereWritersPatchIt() {
        let encoded = TrackRunAtom(dataOffset: 0x0A0B_0C0D, sampleCount: 1, sampleFields: TrackRunAtom.sizePresent,
                                   samples: [.init(size: 9)]).encoded
        let at = TrackRunAtom.dataOffsetPosition
        #expect(Array(encoded[at..<at + 4]) == [0x0A, 0x0B, 0x0C, 0x0D])
    }

    @Test func trunClaimingMoreEntriesThanItHoldsThrows() {
        let hostile = bytes("00000F01 FFFFFFFF 00000000")
        #expect(throws: MovieFormatError.self) { _ = try TrackRunAtom(bodyBytes: hostile[...]) }
    }
}
