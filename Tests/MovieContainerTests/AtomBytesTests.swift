import Testing
@testable import MovieContainer

// Byte-exact tests for every atom MovieContainer writes. Each expected byte string is written
// out by hand, field by field, from the QuickTime File Format pages the atom cites and from
// /work/shared/reference/quicktime-format.md (section numbers below). None is produced by the
// code under test. Each test then decodes the hand-written bytes and the encoded bytes back
// and checks that they give the value that was encoded.

// MARK: - Helpers

/// Bytes from hex text. Spaces, newlines, `/` and `|` separate groups and are ignored.
func hex(_ parts: String...) -> [UInt8] {
    var digits: [UInt8] = []
    for character in parts.joined() {
        if let value = character.hexDigitValue {
            digits.append(UInt8(value))
        } else {
            precondition(" \n/|".contains(character), "'\(character)' is not a hex digit")
        }
    }
    precondition(digits.count % 2 == 0, "an odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// `count` zero bytes, for reserved fields and padding.
func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

/// Records an issue naming the first differing byte, with both sides in hex.
func expectBytes(_ actual: [UInt8], _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != expected else { return }
    func dump(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }
    let first = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, expected.count)
    Issue.record("""
        bytes differ at offset \(first) (actual \(actual.count) bytes, expected \(expected.count))
        actual:   \(dump(actual))
        expected: \(dump(expected))
        """, sourceLocation: sourceLocation)
}

/// Checks `atom.encoded` against hand-written bytes, then decodes both the expected and the
/// encoded bytes (after their 8-byte header) and checks each gives `atom` back.
func expectAtom<A: QuickTimeAtom>(_ atom: A, encodesTo expected: [UInt8],
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
    let encoded = atom.encoded
    expectBytes(encoded, expected, sourceLocation: sourceLocation)
    #expect(try A(bodyBytes: expected.dropFirst(8)) == atom, "decoding the expected bytes", sourceLocation: sourceLocation)
    #expect(try A(bodyBytes: encoded.dropFirst(8)) == atom, "round trip", sourceLocation: sourceLocation)
}

/// 2024-11-30 00:00:00 UTC: 3_815_769_600 s after 1904 (Unix 1_732_924_800 + 2_082_844_800), below 2^32.
let creation = QuickTimeTimestamp(secondsSince1904: 0xE370_0600)

/// Parameter sets from the fixture streams (Fixtures/testsrc-ipp.264: Main profile 77;
/// Fixtures/testsrc-bframes.264: High profile 100, 4:2:0, 8-bit), copied here as bytes.
let mainSPS = hex("674d400bda0a11f970110000030001000003003c8f142aa0")
let mainPPS = hex("68ef0672")
let highSPS = hex("6764000bacd942847e5c05a808080a000003000200000300791e28532c")
let highPPS = hex("68ef8672c0")

// MARK: - Atoms

@Suite("Atom bytes")
struct AtomBytesTests {
    @Test("ftyp: qt brand as Apple writes it (reference §3)")
    func fileType() throws {
        try expectAtom(FileTypeAtom.quickTime, encodesTo: hex(
            "00000014 66747970",  // size 20, 'ftyp'
            "71742020",           // major brand 'qt  '
            "00000000",           // minor version 0
            "71742020"            // compatible brands: 'qt  '
        ))
        try expectAtom(FileTypeAtom(majorBrand: "isom", minorVersion: 0x200, compatibleBrands: ["isom", "mp41"]), encodesTo: hex(
            "00000018 66747970",  // size 24, 'ftyp'
            "69736F6D",           // major brand 'isom'
            "00000200",           // minor version 0x200
            "69736F6D 6D703431"   // compatible brands: 'isom', 'mp41'
        ))
    }

    @Test("mvhd version 0")
    func movieHeaderV0() throws {
        let mvhd = MovieHeaderAtom(creationTime: creation, modificationTime: QuickTimeTimestamp(secondsSince1904: 0xE370_0601),
                                   timescale: 600, duration: 6000, nextTrackID: 3)
        #expect(mvhd.version == 0)
        try expectAtom(mvhd, encodesTo: hex(
            "0000006C 6D766864",           // size 108, 'mvhd'
            "00 000000",                   // version 0, flags 0
            "E3700600",                    // creation time
            "E3700601",                    // modification time
            "00000258",                    // time scale 600
            "00001770",                    // duration 6000
            "00010000",                    // preferred rate 1.0 (16.16)
            "0100",                        // preferred volume 1.0 (8.8)
            "0000 00000000 00000000",      // 10 reserved bytes
            "00010000 00000000 00000000",  // matrix a b u: identity
            "00000000 00010000 00000000",  //        c d v
            "00000000 00000000 40000000",  //        x y w (w = 1.0 in 2.30)
            "00000000 00000000",           // preview time, preview duration
            "00000000",                    // poster time
            "00000000 00000000",           // selection time, selection duration
            "00000000",                    // current time
            "00000003"                     // next track ID
        ))
    }

    @Test("mvhd version 1: a duration past 2^32 − 1 widens times and duration to 64 bits")
    func movieHeaderV1() throws {
        var mvhd = MovieHeaderAtom(creationTime: creation, modificationTime: creation, timescale: 48000,
                                   duration: 0x1_0000_0000, nextTrackID: 2)
        mvhd.preferredRate = 0x0002_0000
        mvhd.preferredVolume = 0x0080
        #expect(mvhd.version == 1)
        try expectAtom(mvhd, encodesTo: hex(
            "00000078 6D766864",           // size 120, 'mvhd'
            "01 000000",                   // version 1, flags 0
            "00000000 E3700600",           // creation time (64-bit)
            "00000000 E3700600",           // modification time (64-bit)
            "0000BB80",                    // time scale 48000
            "00000001 00000000",           // duration 2^32 (64-bit)
            "00020000",                    // preferred rate 2.0
            "0080",                        // preferred volume 0.5
            "0000 00000000 00000000",      // reserved
            "00010000 00000000 00000000",  // matrix: identity
            "00000000 00010000 00000000",
            "00000000 00000000 40000000",
            "00000000 00000000",           // preview time, preview duration
            "00000000",                    // poster time
            "00000000 00000000",           // selection time, selection duration
            "00000000",                    // current time
            "00000002"                     // next track ID
        ))
    }

    @Test("tkhd version 0: a 90° video track, matrix at byte 48")
    func trackHeaderV0() throws {
        let matrix = try VideoOrientation(rotationAngle: 90).matrix(width: 1920, height: 1080)
        let tkhd = TrackHeaderAtom(trackID: 1, creationTime: creation, duration: 6000, volume: 0, matrix: matrix,
                                   width: 1920 << 16, height: 1080 << 16)
        let matrixBytes = hex(
            "00000000 00010000 00000000",  // a = 0, b = 1, u = 0
            "FFFF0000 00000000 00000000",  // c = −1, d = 0, v = 0
            "04380000 00000000 40000000"   // x = 1080, y = 0, w = 1
        )
        let expected = hex(
            "0000005C 746B6864",  // size 92, 'tkhd'
            "00 000003",          // version 0, flags: enabled | in movie
            "E3700600",           // creation time
            "E3700600",           // modification time
            "00000001",           // track ID 1
            "00000000",           // reserved
            "00001770",           // duration 6000 (movie time scale)
            "00000000 00000000",  // reserved
            "0000",               // layer
            "0000",               // alternate group
            "0000",               // volume 0 (video)
            "0000"                // reserved
        ) + matrixBytes + hex(
            "07800000",           // width 1920.0 (16.16)
            "04380000"            // height 1080.0
        )
        try expectAtom(tkhd, encodesTo: expected)
        #expect(TrackHeaderAtom.matrixOffset(version: 0) == 48)
        #expect(Array(tkhd.encoded[48..<84]) == matrixBytes)
    }

    @Test("tkhd version 1: a creation time after 2040 widens times and duration to 64 bits")
    func trackHeaderV1() throws {
        var tkhd = TrackHeaderAtom(trackID: 2, creationTime: QuickTimeTimestamp(secondsSince1904: 0x1_0000_0001),
                                   duration: 96000, volume: 0x0100, matrix: .identity, width: 0, height: 0)
        tkhd.flags = [.enabled, .inMovie, .inPreview]
        tkhd.alternateGroup = 1
        tkhd.layer = -1
        #expect(tkhd.version == 1)
        let expected = hex(
            "00000068 746B6864",           // size 104, 'tkhd'
            "01 000007",                   // version 1, flags: enabled | in movie | in preview
            "00000001 00000001",           // creation time (64-bit)
            "00000001 00000001",           // modification time (64-bit)
            "00000002",                    // track ID 2
            "00000000",                    // reserved
            "00000000 00017700",           // duration 96000 (64-bit)
            "00000000 00000000",           // reserved
            "FFFF",                        // layer −1
            "0001",                        // alternate group 1
            "0100",                        // volume 1.0 (sound)
            "0000",                        // reserved
            "00010000 00000000 00000000",  // matrix: identity
            "00000000 00010000 00000000",
            "00000000 00000000 40000000",
            "00000000",                    // width 0
            "00000000"                     // height 0
        )
        try expectAtom(tkhd, encodesTo: expected)
        #expect(TrackHeaderAtom.matrixOffset(version: 1) == 60)
        #expect(Array(expected[60..<64]) == hex("00010000"))  // a = 1.0 starts the matrix
    }

    @Test("elst version 0: an empty edit then the media from time 40")
    func editListV0() throws {
        let elst = EditListAtom(entries: [
            .init(segmentDuration: 600, mediaTime: -1),
            .init(segmentDuration: 6000, mediaTime: 40),
        ])
        #expect(elst.version == 0)
        try expectAtom(elst, encodesTo: hex(
            "00000028 656C7374",  // size 40, 'elst'
            "00 000000",          // version 0, flags 0
            "00000002",           // 2 entries
            "00000258",           // [1] segment duration 600
            "FFFFFFFF",           //     media time −1: empty edit
            "00010000",           //     media rate 1.0
            "00001770",           // [2] segment duration 6000
            "00000028",           //     media time 40
            "00010000"            //     media rate 1.0
        ))
    }

    @Test("elst version 1: a segment duration past 2^32 − 1")
    func editListV1() throws {
        let elst = EditListAtom(entries: [
            .init(segmentDuration: 600, mediaTime: -1),
            .init(segmentDuration: 0x1_0000_0000, mediaTime: 1024, mediaRate: 0x0000_8000),
        ])
        #expect(elst.version == 1)
        try expectAtom(elst, encodesTo: hex(
            "00000038 656C7374",   // size 56, 'elst'
            "01 000000",           // version 1, flags 0
            "00000002",            // 2 entries
            "00000000 00000258",   // [1] segment duration 600 (64-bit)
            "FFFFFFFF FFFFFFFF",   //     media time −1 (64-bit)
            "00010000",            //     media rate 1.0
            "00000001 00000000",   // [2] segment duration 2^32
            "00000000 00000400",   //     media time 1024
            "00008000"             //     media rate 0.5
        ))
        // A media time past Int32.max alone also needs version 1.
        #expect(EditListAtom(entries: [.init(segmentDuration: 1, mediaTime: 0x8000_0000)]).version == 1)
    }

    @Test("mdhd version 0: 48 kHz audio, language und")
    func mediaHeaderV0() throws {
        let mdhd = MediaHeaderAtom(creationTime: creation, timescale: 48000, duration: 96000)
        #expect(mdhd.version == 0)
        try expectAtom(mdhd, encodesTo: hex(
            "00000020 6D646864",  // size 32, 'mdhd'
            "00 000000",          // version 0, flags 0
            "E3700600",           // creation time
            "E3700600",           // modification time
            "0000BB80",           // time scale 48000
            "00017700",           // duration 96000
            "55C4",               // language: packed ISO 639-2 'und'
            "0000"                // quality
        ))
    }

    @Test("mdhd version 1: a duration past 2^32 − 1")
    func mediaHeaderV1() throws {
        var mdhd = MediaHeaderAtom(creationTime: creation, timescale: 90000, duration: 0x1_2345_6789)
        mdhd.language = 0x7FFF
        #expect(mdhd.version == 1)
        try expectAtom(mdhd, encodesTo: hex(
            "0000002C 6D646864",  // size 44, 'mdhd'
            "01 000000",          // version 1, flags 0
            "00000000 E3700600",  // creation time (64-bit)
            "00000000 E3700600",  // modification time (64-bit)
            "00015F90",           // time scale 90000
            "00000001 23456789",  // duration (64-bit)
            "7FFF",               // language: unspecified Macintosh code
            "0000"                // quality
        ))
    }

    @Test("hdlr: media handler with a Pascal-string name, data handler with an empty one")
    func handler() throws {
        try expectAtom(HandlerAtom(componentType: "mhlr", componentSubtype: "vide", name: "Core Media Video"), encodesTo: hex(
            "00000031 68646C72",  // size 49, 'hdlr'
            "00 000000",          // version 0, flags 0
            "6D686C72",           // component type 'mhlr'
            "76696465",           // component subtype 'vide'
            "00000000",           // component manufacturer
            "00000000",           // component flags
            "00000000",           // component flags mask
            "10",                 // name length 16
            "436F7265 204D6564 69612056 6964656F"  // "Core Media Video"
        ))
        try expectAtom(HandlerAtom(componentType: "dhlr", componentSubtype: "url ", name: ""), encodesTo: hex(
            "00000021 68646C72",  // size 33, 'hdlr'
            "00 000000",          // version 0, flags 0
            "64686C72",           // component type 'dhlr'
            "75726C20",           // component subtype 'url '
            "00000000 00000000 00000000",  // manufacturer, flags, flags mask
            "00"                  // name length 0
        ))
    }

    @Test("hdlr: an ISO C-string name is read too")
    func handlerCString() throws {
        let body = hex(
            "00 000000",          // version 0, flags 0
            "00000000",           // pre_defined (ISO) where QuickTime has the component type
            "76696465",           // handler type 'vide'
            "00000000 00000000 00000000",  // reserved
            "56696465 6F48616E 646C6572 00"  // "VideoHandler", NUL-terminated
        )
        let hdlr = try HandlerAtom(bodyBytes: body[...])
        #expect(hdlr.componentSubtype == "vide")
        #expect(hdlr.name == "VideoHandler")
    }

    @Test("vmhd: flags 1, dither copy, grey opcolor")
    func videoMediaHeader() throws {
        try expectAtom(VideoMediaHeaderAtom(), encodesTo: hex(
            "00000014 766D6864",  // size 20, 'vmhd'
            "00 000001",          // version 0, flags 1 (required)
            "0040",               // graphics mode: dither copy
            "8000 8000 8000"      // opcolor red, green, blue
        ))
    }

    @Test("smhd: centre balance")
    func soundMediaHeader() throws {
        try expectAtom(SoundMediaHeaderAtom(), encodesTo: hex(
            "00000010 736D6864",  // size 16, 'smhd'
            "00 000000",          // version 0, flags 0
            "0000",               // balance 0 (centre)
            "0000"                // reserved
        ))
    }

    @Test("dref: one self-contained 'url ' entry")
    func dataReference() throws {
        try expectAtom(DataReferenceAtom(), encodesTo: hex(
            "0000001C 64726566",  // size 28, 'dref'
            "00 000000",          // version 0, flags 0
            "00000001",           // 1 entry
            "0000000C 75726C20",  //   size 12, 'url '
            "00 000001"           //   version 0, flags 1: data in this file
        ))
    }

    @Test("stsd: entries keep their format and body")
    func sampleDescription() throws {
        let stsd = SampleDescriptionAtom(entries: [
            .init(format: "abcd", body: hex("000000000000 0001 DEADBEEF")),
            .init(format: "wxyz", body: hex("000000000000 0002")),
        ])
        try expectAtom(stsd, encodesTo: hex(
            "00000034 73747364",  // size 52, 'stsd'
            "00 000000",          // version 0, flags 0
            "00000002",           // 2 entries
            "00000014 61626364",  // [1] size 20, 'abcd'
            "000000000000 0001",  //     reserved, data reference index 1
            "DEADBEEF",           //     format-specific bytes
            "00000010 7778797A",  // [2] size 16, 'wxyz'
            "000000000000 0002"   //     reserved, data reference index 2
        ))
    }

    @Test("avc1 with avcC, pasp and colr (reference §4.1, §4.2, §4.7)")
    func videoSampleEntry() throws {
        let configuration = try AVCDecoderConfiguration(parameterSets: [mainSPS, mainPPS])
        let entry = VideoSampleEntry(h264: configuration, width: 320, height: 240, pixelAspectRatio: SampleAspectRatio(horizontal: 1, vertical: 1), color: .bt709)
        let stsd = SampleDescriptionAtom(entries: [entry.descriptionEntry])
        let expected = hex(
            "000000B7 73747364",  // size 183, 'stsd'
            "00 000000",          // version 0, flags 0
            "00000001",           // 1 entry
            "000000A7 61766331",  // entry size 167, 'avc1'
            "000000000000",       // reserved
            "0001",               // data reference index 1
            "0000 0000",          // version, revision level
            "00000000",           // vendor
            "00000200",           // temporal quality: normal
            "00000200",           // spatial quality: normal
            "0140 00F0",          // width 320, height 240
            "00480000 00480000",  // horizontal, vertical resolution 72 dpi
            "00000000",           // data size
            "0001",               // frame count 1
            "05 482E323634"       // compressor name: length 5, "H.264" ...
        ) + zeros(26) + hex(      //   ... zero-padded to 32 bytes
            "0018",               // depth 24
            "FFFF",               // colour table ID −1: none
            "0000002F 61766343",  // size 47, 'avcC'
            "01 4D 40 0B",        //   version 1, profile 77, compatibility 0x40, level 11
            "FF",                 //   6 reserved bits, lengthSizeMinusOne 3
            "E1",                 //   3 reserved bits, 1 SPS
            "0018", "674d400bda0a11f970110000030001000003003c8f142aa0",  // SPS length 24, SPS
            "01",                 //   1 PPS
            "0004 68ef0672",      //   PPS length 4, PPS
            "00000010 70617370",  // size 16, 'pasp'
            "00000001 00000001",  //   h spacing 1, v spacing 1
            "00000012 636F6C72",  // size 18, 'colr'
            "6E636C63",           //   'nclc'
            "0001 0001 0001"      //   BT.709 primaries, transfer, matrix
        )
        expectBytes(stsd.encoded, expected)
        let decoded = try SampleDescriptionAtom(bodyBytes: expected.dropFirst(8))
        #expect(decoded.entries.count == 1)
        let readBack = try VideoSampleEntry(decoded.entries[0])
        #expect(readBack == entry)
        #expect(readBack.extensions.map(\.type) == ["avcC", "pasp", "colr"])
        #expect(try SampleDescriptionAtom(bodyBytes: stsd.encoded.dropFirst(8)) == stsd)
    }

    @Test("avcC body for Main profile (77): no chroma/bit-depth trailer")
    func avcConfigurationMain() throws {
        let configuration = try AVCDecoderConfiguration(parameterSets: [mainSPS, mainPPS])
        expectBytes(configuration.atomBody, hex(
            "01",                 // configurationVersion
            "4D",                 // AVCProfileIndication 77
            "40",                 // profile_compatibility
            "0B",                 // AVCLevelIndication 11
            "FF",                 // reserved 111111, lengthSizeMinusOne 3
            "E1",                 // reserved 111, numOfSequenceParameterSets 1
            "0018",               // SPS length 24
            "674d400bda0a11f970110000030001000003003c8f142aa0",
            "01",                 // numOfPictureParameterSets 1
            "0004",               // PPS length 4
            "68ef0672"
        ))
    }

    @Test("avcC body for Baseline profile (66): no trailer, SEI left out")
    func avcConfigurationBaseline() throws {
        // A hand-made Baseline SPS: profile 66, constraint flags 0xC0, level 30, then
        // sps_id 0, log2_max_frame_num 4, POC type 2, 1 reference frame, 320×240, frame MBs
        // only, direct 8x8, no cropping, no VUI.
        let sps = hex("6742C01E DA0507E4")
        let pps = hex("68CE3880")
        let sei = hex("06 05 01 AA 80")
        let configuration = try AVCDecoderConfiguration(parameterSets: [sps, sei, pps])
        #expect(configuration.sps.width == 320 && configuration.sps.height == 240)
        expectBytes(configuration.atomBody, hex(
            "01 42 C0 1E",        // version 1, profile 66, compatibility 0xC0, level 30
            "FF E1",              // lengthSizeMinusOne 3, 1 SPS
            "0008 6742C01EDA0507E4",  // SPS length 8, SPS
            "01 0004 68CE3880"    // 1 PPS, length 4, PPS
        ))
    }

    @Test("avcC body for High profile (100): chroma format and bit depths follow")
    func avcConfigurationHigh() throws {
        let configuration = try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS])
        expectBytes(configuration.atomBody, hex(
            "01 64 00 0B",        // version 1, profile 100, compatibility 0, level 11
            "FF",                 // lengthSizeMinusOne 3
            "E1",                 // 1 SPS
            "001D",               // SPS length 29
            "6764000bacd942847e5c05a808080a000003000200000300791e28532c",
            "01",                 // 1 PPS
            "0005 68ef8672c0",    // PPS length 5, PPS
            "FD",                 // reserved 111111, chroma_format_idc 1 (4:2:0)
            "F8",                 // reserved 11111, bit_depth_luma_minus8 0
            "F8",                 // reserved 11111, bit_depth_chroma_minus8 0
            "00"                  // numOfSequenceParameterSetExt 0
        ))
    }

    @Test("pasp")
    func pixelAspectRatio() throws {
        try expectAtom(PixelAspectRatioAtom(horizontalSpacing: 40, verticalSpacing: 33), encodesTo: hex(
            "00000010 70617370",  // size 16, 'pasp'
            "00000028",           // horizontal spacing 40
            "00000021"            // vertical spacing 33
        ))
    }

    @Test("colr nclc, and nclx read with its range bit")
    func colorParameters() throws {
        try expectAtom(ColorParameterAtom(.smpte170m), encodesTo: hex(
            "00000012 636F6C72",  // size 18, 'colr'
            "6E636C63",           // colour parameter type 'nclc'
            "0006",               // primaries index 6
            "0006",               // transfer function index 6
            "0006"                // matrix index 6
        ))
        let nclx = try ColorParameterAtom(bodyBytes: hex("6E636C78 0009 0010 0009 80")[...])
        #expect(nclx.color == ColorDescription(primaries: 9, transferFunction: 16, matrix: 9, isFullRange: true))
        #expect(throws: MovieFormatError.self) { try ColorParameterAtom(bodyBytes: hex("70726F66 0001 0001 0001")[...]) }
    }

    @Test("sowt version 0: 48 kHz stereo s16le with a stereo chan (reference §5.2)")
    func soundEntrySowt() throws {
        let pcm = PCMFormat.int16(sampleRate: 48000, channelCount: 2)
        let sound = SoundSampleEntry(pcm: pcm)
        #expect(sound.format == "sowt")
        let stsd = SampleDescriptionAtom(entries: [sound.descriptionEntry])
        let expected = hex(
            "0000004C 73747364",  // size 76, 'stsd'
            "00 000000",          // version 0, flags 0
            "00000001",           // 1 entry
            "0000003C 736F7774",  // entry size 60, 'sowt'
            "000000000000",       // reserved
            "0001",               // data reference index 1
            "0000",               // version 0
            "0000",               // revision level
            "00000000",           // vendor
            "0002",               // 2 channels
            "0010",               // sample size 16
            "0000",               // compression ID 0
            "0000",               // packet size 0
            "BB800000",           // sample rate 48000.0 (16.16)
            "00000018 6368616E",  // size 24, 'chan'
            "00 000000",          //   version 0, flags 0
            "00650002",           //   layout tag: stereo (101 << 16 | 2)
            "00000000",           //   channel bitmap
            "00000000"            //   0 channel descriptions
        )
        expectBytes(stsd.encoded, expected)
        let decoded = try SampleDescriptionAtom(bodyBytes: expected.dropFirst(8))
        #expect(try SoundSampleEntry(decoded.entries[0]).pcm == pcm)
        #expect(try SampleDescriptionAtom(bodyBytes: stsd.encoded.dropFirst(8)) == stsd)
    }

    @Test("twos version 0: 44.1 kHz mono s16be with a mono chan")
    func soundEntryTwos() throws {
        let pcm = PCMFormat(sampleRate: 44100, channelCount: 1, isBigEndian: true)
        let sound = SoundSampleEntry(pcm: pcm)
        #expect(sound.format == "twos")
        let stsd = SampleDescriptionAtom(entries: [sound.descriptionEntry])
        let expected = hex(
            "0000004C 73747364",  // size 76, 'stsd'
            "00 000000",          // version 0, flags 0
            "00000001",           // 1 entry
            "0000003C 74776F73",  // entry size 60, 'twos'
            "000000000000 0001",  // reserved, data reference index 1
            "0000 0000",          // version 0, revision level
            "00000000",           // vendor
            "0001",               // 1 channel
            "0010",               // sample size 16
            "0000",               // compression ID 0
            "0000",               // packet size 0
            "AC440000",           // sample rate 44100.0 (16.16)
            "00000018 6368616E",  // size 24, 'chan'
            "00 000000",          //   version 0, flags 0
            "00640001",           //   layout tag: mono (100 << 16 | 1)
            "00000000 00000000"   //   channel bitmap, 0 descriptions
        )
        expectBytes(stsd.encoded, expected)
        let decoded = try SampleDescriptionAtom(bodyBytes: expected.dropFirst(8))
        #expect(try SoundSampleEntry(decoded.entries[0]).pcm == pcm)
    }

    @Test("lpcm version 2: 96 kHz stereo s16le, the bytes FFmpeg writes (reference §5.2)")
    func soundEntryLPCM() throws {
        let pcm = PCMFormat.int16(sampleRate: 96000, channelCount: 2)
        let sound = SoundSampleEntry(pcm: pcm)
        #expect(sound.format == "lpcm")
        #expect(sound.formatSpecificFlags == 12)
        let stsd = SampleDescriptionAtom(entries: [sound.descriptionEntry])
        let expected = hex(
            "00000070 73747364",  // size 112, 'stsd'
            "00 000000",          // version 0, flags 0
            "00000001",           // 1 entry
            "00000060 6C70636D",  // entry size 96, 'lpcm'
            "000000000000 0001",  // reserved, data reference index 1
            "0002",               // version 2
            "0000",               // revision level
            "00000000",           // vendor
            "0003",               // always 3
            "0010",               // always 16
            "FFFE",               // always −2
            "0000",               // always 0
            "00010000",           // always 65536
            "00000048",           // sizeOfStructOnly 72
            "40F7700000000000",   // audioSampleRate 96000.0 (float64)
            "00000002",           // numAudioChannels 2
            "7F000000",           // always 0x7F000000
            "00000010",           // constBitsPerChannel 16
            "0000000C",           // formatSpecificFlags: signed integer | packed
            "00000004",           // constBytesPerAudioPacket 4
            "00000001",           // constLPCMFramesPerAudioPacket 1
            "00000018 6368616E",  // size 24, 'chan'
            "00 000000 00650002 00000000 00000000"  // v0, stereo tag, bitmap, 0 descriptions
        )
        expectBytes(stsd.encoded, expected)
        let decoded = try SampleDescriptionAtom(bodyBytes: expected.dropFirst(8))
        #expect(try SoundSampleEntry(decoded.entries[0]).pcm == pcm)
    }

    @Test("lpcm version 2 flags for floats and big-endian integers (reference §5.2)")
    func soundEntryLPCMFlags() {
        #expect(SoundSampleEntry(pcm: PCMFormat(sampleRate: 48000, channelCount: 2, bitsPerChannel: 32, isFloat: true)).formatSpecificFlags == 9)
        #expect(SoundSampleEntry(pcm: PCMFormat(sampleRate: 48000, channelCount: 2, bitsPerChannel: 24, isBigEndian: true)).formatSpecificFlags == 14)
        #expect(SoundSampleEntry(pcm: PCMFormat(sampleRate: 48000, channelCount: 6)).format == "lpcm")
    }

    @Test("chan: mono and stereo layout tags (reference §5.4)")
    func channelLayout() throws {
        try expectAtom(ChannelLayoutAtom(layoutTag: ChannelLayoutAtom.mono), encodesTo: hex(
            "00000018 6368616E",  // size 24, 'chan'
            "00 000000",          // version 0, flags 0
            "00640001",           // kAudioChannelLayoutTag_Mono
            "00000000",           // channel bitmap
            "00000000"            // number of channel descriptions
        ))
        try expectAtom(ChannelLayoutAtom(layoutTag: ChannelLayoutAtom.stereo), encodesTo: hex(
            "00000018 6368616E",  // size 24, 'chan'
            "00 000000",          // version 0, flags 0
            "00650002",           // kAudioChannelLayoutTag_Stereo
            "00000000",           // channel bitmap
            "00000000"            // number of channel descriptions
        ))
    }

    @Test("stts")
    func timeToSample() throws {
        try expectAtom(TimeToSampleAtom(entries: [(29, 20), (1, 40)]), encodesTo: hex(
            "00000020 73747473",  // size 32, 'stts'
            "00 000000",          // version 0, flags 0
            "00000002",           // 2 entries
            "0000001D 00000014",  // 29 samples of 20 ticks
            "00000001 00000028"   // 1 sample of 40 ticks
        ))
    }

    @Test("ctts version 0, and version 1's negative offsets read back")
    func compositionOffsets() throws {
        try expectAtom(CompositionOffsetAtom(entries: [(1, 40), (2, 0), (1, 0x7FFF_FFFF)]), encodesTo: hex(
            "00000028 63747473",  // size 40, 'ctts'
            "00 000000",          // version 0, flags 0
            "00000003",           // 3 entries
            "00000001 00000028",  // 1 sample, offset 40
            "00000002 00000000",  // 2 samples, offset 0
            "00000001 7FFFFFFF"   // 1 sample, offset Int32.max
        ))
        let v1 = try CompositionOffsetAtom(bodyBytes: hex("01 000000 00000001 00000003 FFFFFFF6")[...])
        #expect(v1 == CompositionOffsetAtom(entries: [(3, -10)]))
    }

    @Test("stss")
    func syncSamples() throws {
        try expectAtom(SyncSampleAtom(sampleNumbers: [1, 31, 61]), encodesTo: hex(
            "0000001C 73747373",  // size 28, 'stss'
            "00 000000",          // version 0, flags 0
            "00000003",           // 3 entries
            "00000001 0000001F 0000003D"  // samples 1, 31, 61
        ))
    }

    @Test("stsc")
    func sampleToChunk() throws {
        try expectAtom(SampleToChunkAtom(entries: [.init(firstChunk: 1, samplesPerChunk: 15), .init(firstChunk: 3, samplesPerChunk: 10, sampleDescriptionID: 2)]), encodesTo: hex(
            "00000028 73747363",  // size 40, 'stsc'
            "00 000000",          // version 0, flags 0
            "00000002",           // 2 entries
            "00000001 0000000F 00000001",  // from chunk 1: 15 samples, description 1
            "00000003 0000000A 00000002"   // from chunk 3: 10 samples, description 2
        ))
    }

    @Test("stsz with a constant size: PCM frames (reference §5.3)")
    func sampleSizeConstant() throws {
        let stsz = SampleSizeAtom(constantSize: 4, sampleCount: 96000)
        try expectAtom(stsz, encodesTo: hex(
            "00000014 7374737A",  // size 20, 'stsz'
            "00 000000",          // version 0, flags 0
            "00000004",           // sample size 4 for every sample
            "00017700"            // 96000 samples, no table
        ))
        #expect(stsz.size(ofSample: 95999) == 4)
    }

    @Test("stsz with a size per sample")
    func sampleSizeTable() throws {
        let stsz = SampleSizeAtom(sizes: [1154, 299, 296])
        try expectAtom(stsz, encodesTo: hex(
            "00000020 7374737A",  // size 32, 'stsz'
            "00 000000",          // version 0, flags 0
            "00000000",           // sample size 0: a table follows
            "00000003",           // 3 samples
            "00000482 0000012B 00000128"  // 1154, 299, 296 bytes
        ))
        #expect(stsz.size(ofSample: 1) == 299)
    }

    @Test("stco")
    func chunkOffsets() throws {
        try expectAtom(ChunkOffsetAtom(offsets: [36, 0x1000, 0xFFFF_FFFF]), encodesTo: hex(
            "0000001C 7374636F",  // size 28, 'stco'
            "00 000000",          // version 0, flags 0
            "00000003",           // 3 entries
            "00000024 00001000 FFFFFFFF"  // 36, 4096, 2^32 − 1
        ))
    }

    @Test("co64")
    func chunkOffsets64() throws {
        try expectAtom(ChunkOffset64Atom(offsets: [36, 0x1_0000_0000]), encodesTo: hex(
            "00000020 636F3634",  // size 32, 'co64'
            "00 000000",          // version 0, flags 0
            "00000002",           // 2 entries
            "00000000 00000024",  // 36
            "00000001 00000000"   // 2^32
        ))
    }

    @Test("a table body too short for its count throws before allocating")
    func tableTooShort() {
        #expect(throws: MovieFormatError.self) { try TimeToSampleAtom(bodyBytes: hex("00000000 00000002 00000001 00000014")[...]) }
        let error = #expect(throws: MovieFormatError.self) { try ChunkOffsetAtom(bodyBytes: hex("00000000 00000002 00000024")[...]) }
        #expect(error?.code == .tableLargerThanAtom)
        #expect(error?.atom == "stco")
    }
}

// MARK: - Orientation

@Suite("Orientation")
struct OrientationTests {
    /// The eight orientations with their `tkhd` matrix bytes for 1920×1080 from the reference
    /// §1.2 (rotation) and §1.3 (rotation then mirror), each as a b u / c d v / x y w.
    static let matrices: [(angle: Double, mirrored: Bool, bytes: [UInt8])] = [
        (0, false, hex("00010000 00000000 00000000 / 00000000 00010000 00000000 / 00000000 00000000 40000000")),
        (90, false, hex("00000000 00010000 00000000 / FFFF0000 00000000 00000000 / 04380000 00000000 40000000")),
        (180, false, hex("FFFF0000 00000000 00000000 / 00000000 FFFF0000 00000000 / 07800000 04380000 40000000")),
        (270, false, hex("00000000 FFFF0000 00000000 / 00010000 00000000 00000000 / 00000000 07800000 40000000")),
        // (−1, 0, 0, 1, W, 0)
        (0, true, hex("FFFF0000 00000000 00000000 / 00000000 00010000 00000000 / 07800000 00000000 40000000")),
        // (0, 1, 1, 0, 0, 0)
        (90, true, hex("00000000 00010000 00000000 / 00010000 00000000 00000000 / 00000000 00000000 40000000")),
        // (1, 0, 0, −1, 0, H)
        (180, true, hex("00010000 00000000 00000000 / 00000000 FFFF0000 00000000 / 00000000 04380000 40000000")),
        // (0, −1, −1, 0, H, W)
        (270, true, hex("00000000 FFFF0000 00000000 / FFFF0000 00000000 00000000 / 04380000 07800000 40000000")),
    ]

    @Test("matrix bytes at 1920×1080 for all eight orientations", arguments: 0..<8)
    func matrixBytes(_ index: Int) throws {
        let (angle, mirrored, expected) = Self.matrices[index]
        #expect(expected.count == 36)
        let orientation = try VideoOrientation(rotationAngle: angle, isMirrored: mirrored)
        #expect(orientation.rotationAngle == Int(angle))
        #expect(orientation.isMirrored == mirrored)
        let matrix = orientation.matrix(width: 1920, height: 1080)
        expectBytes(matrix.bytes, expected)
        // The orientation is recovered from the matrix, and from the hand-written bytes.
        #expect(VideoOrientation(matrix: matrix) == orientation)
        var reader = ByteReader(expected, context: "tkhd")
        #expect(VideoOrientation(matrix: try TransformationMatrix.read(from: &reader)) == orientation)
    }

    @Test("the eight cases are distinct and allCases lists them")
    func allCases() throws {
        #expect(Set(VideoOrientation.allCases).count == 8)
        for (angle, mirrored, _) in Self.matrices {
            #expect(VideoOrientation.allCases.contains(try VideoOrientation(rotationAngle: angle, isMirrored: mirrored)))
        }
    }

    @Test("a matrix that scales or uses perspective has no orientation")
    func unsupportedMatrix() {
        #expect(VideoOrientation(matrix: TransformationMatrix(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: 0)) == nil)
        var perspective = TransformationMatrix.identity
        perspective.values[2] = 1
        #expect(VideoOrientation(matrix: perspective) == nil)
        var halfW = TransformationMatrix.identity
        halfW.values[8] = 0x2000_0000
        #expect(VideoOrientation(matrix: halfW) == nil)
    }

    @Test("unsupported angles throw and are never snapped",
          arguments: [45, -90, 360, Double.nan, Double.infinity, -Double.infinity, 90.5, 89.999999, -0.5])
    func unsupportedAngle(_ angle: Double) {
        let error = #expect(throws: OrientationError.self) { try VideoOrientation(rotationAngle: angle) }
        if angle.isNaN {
            #expect(error?.angle.isNaN == true)
        } else {
            #expect(error?.angle == angle)
        }
        #expect(!VideoOrientation.isSupported(rotationAngle: angle))
    }

    @Test("what ffprobe, mediainfo/exiftool and Exif report (reference §1.5)")
    func reportedAngles() throws {
        // (angle, mirrored, ffprobe rotation, clockwise angle, Exif orientation)
        let table: [(Double, Bool, Int, Int, Int)] = [
            (0, false, 0, 0, 1),
            (90, false, -90, 90, 6),
            (180, false, -180, 180, 3),
            (270, false, 90, 270, 8),
            (0, true, -180, 180, 2),
            (90, true, -90, 90, 5),
            (180, true, 0, 0, 4),
            (270, true, 90, 270, 7),
        ]
        for (angle, mirrored, ffprobe, clockwise, exif) in table {
            let orientation = try VideoOrientation(rotationAngle: angle, isMirrored: mirrored)
            #expect(orientation.ffprobeRotation == ffprobe, "\(orientation)")
            #expect(orientation.displayedClockwiseAngle == clockwise, "\(orientation)")
            #expect(orientation.exifOrientation == exif, "\(orientation)")
            #expect(VideoOrientation(exifOrientation: exif) == orientation)
        }
        #expect(VideoOrientation(exifOrientation: 0) == nil)
        #expect(VideoOrientation(exifOrientation: 9) == nil)
    }

    @Test("exiftool-style description prints translations in pixels (reference §1.5)")
    func matrixDescription() throws {
        let matrix = try VideoOrientation(rotationAngle: 90).matrix(width: 1920, height: 1080)
        #expect(matrix.description == "0 1 0 -1 0 0 1080 0 1")
    }
}
