import Testing
@testable import MovieContainer

// Byte-exact tests for the metadata atoms (QuickTime File Format, "Metadata atoms and types",
// "Metadata item keys atom", "Metadata item list atom", "Data atom", "Well-known types"). The
// expected bytes are written out by hand, field by field; text is spelled in hex with the text
// beside it. The `hdlr` is the 33 bytes FFmpeg's mov_write_mdta_hdlr_tag writes.

@Suite("Metadata atom bytes")
struct MetadataAtomBytesTests {
    @Test("hdlr inside meta: component type 0, subtype mdta, empty name")
    func handler() throws {
        try expectAtom(MetadataAtom.handler, encodesTo: hex(
            "00000021 68646C72",           // size 33, 'hdlr'
            "00 000000",                   // version 0, flags 0
            "00000000",                    // component type (ISO pre_defined): 0
            "6D647461",                    // component subtype 'mdta'
            "00000000 00000000 00000000",  // reserved
            "00"                           // name: empty Pascal string
        ))
    }

    @Test("data: UTF-8 text is type 1, locale 0, no count or terminator")
    func utf8Value() throws {
        try expectAtom(MetadataValueAtom(.string("Apple")), encodesTo: hex(
            "00000015 64617461",  // size 21, 'data'
            "00 000001",          // type set 0 (well-known), type 1: UTF-8
            "00000000",           // locale: default
            "4170706C65"          // "Apple"
        ))
    }

    @Test("data: integers take type 21 in 1, 2 or 4 bytes, and type 74 in 8")
    func integerValues() throws {
        try expectAtom(MetadataValueAtom(.int(-2)), encodesTo: hex(
            "00000011 64617461",  // size 17, 'data'
            "00000015",           // type 21: big-endian signed integer
            "00000000",           // locale
            "FE"                  // -2 in one byte
        ))
        try expectAtom(MetadataValueAtom(.int(300)), encodesTo: hex(
            "00000012 64617461",  // size 18, 'data'
            "00000015 00000000",  // type 21, locale
            "012C"                // 300 in two bytes
        ))
        try expectAtom(MetadataValueAtom(.int(-100_000)), encodesTo: hex(
            "00000014 64617461",  // size 20, 'data'
            "00000015 00000000",  // type 21, locale
            "FFFE7960"            // -100000 in four bytes
        ))
        try expectAtom(MetadataValueAtom(.int(1 << 40)), encodesTo: hex(
            "00000018 64617461",  // size 24, 'data'
            "0000004A 00000000",  // type 74: big-endian 64-bit signed integer, locale
            "00000100 00000000"   // 2^40
        ))
    }

    @Test("data: a float32-exact number is type 23, any other type 24")
    func floatValues() throws {
        try expectAtom(MetadataValueAtom(.double(1.5)), encodesTo: hex(
            "00000014 64617461",  // size 20, 'data'
            "00000017 00000000",  // type 23: big-endian float32, locale
            "3FC00000"            // 1.5
        ))
        try expectAtom(MetadataValueAtom(.double(0.1)), encodesTo: hex(
            "00000018 64617461",  // size 24, 'data'
            "00000018 00000000",  // type 24: big-endian float64, locale
            "3FB99999 9999999A"   // 0.1
        ))
    }

    @Test("data: other types and a locale are kept as they are")
    func otherValueAndLocale() throws {
        try expectAtom(MetadataValueAtom(.other(typeIndicator: 13, bytes: [0xFF, 0xD8, 0xFF]), locale: 0x0055_0017), encodesTo: hex(
            "00000013 64617461",  // size 19, 'data'
            "0000000D",           // type 13: JPEG
            "00550017",           // locale: country 0x55, language 0x17
            "FFD8FF"              // the bytes
        ))
    }

    @Test("data: values other writers store are read by type and width",
          arguments: [
              (hex("00000016 00000000 FF"), MetadataItem.Value.int(255)),              // 22: unsigned, 1 byte
              (hex("00000015 00000000 FFFFFE"), .int(-2)),                            // 21: signed, 3 bytes
              (hex("00000015 00000000 FFFFFFFF FFFFFFFF"), .int(-1)),                 // 21: signed, 8 bytes
              (hex("00000041 00000000 80"), .int(-128)),                              // 65: int8
              (hex("00000043 00000000 7FFFFFFF"), .int(Int64(Int32.max))),            // 67: int32
              (hex("0000004D 00000000 FFFFFFFF"), .int(Int64(UInt32.max))),           // 77: uint32
              (hex("0000004E 00000000 FFFFFFFF FFFFFFFF"),                            // 78: uint64 past Int64
               .other(typeIndicator: 78, bytes: [UInt8](repeating: 0xFF, count: 8))),
              (hex("00000043 00000000 0001"), .other(typeIndicator: 67, bytes: [0, 1])),  // 67 needs 4 bytes
              (hex("00000017 00000000 3FC000"), .other(typeIndicator: 23, bytes: [0x3F, 0xC0, 0])),  // float32 short
              (hex("00000001 00000000 C3"), .other(typeIndicator: 1, bytes: [0xC3])), // UTF-8 cut mid-character
              (hex("01000001 00000000 41"), .other(typeIndicator: 0x0100_0001, bytes: [0x41])),  // type set 1: reserved
          ])
    func foreignValues(_ body: [UInt8], _ expected: MetadataItem.Value) throws {
        #expect(try MetadataValueAtom(bodyBytes: body[...]).value == expected)
    }

    @Test("keys: count, then size, namespace and UTF-8 bytes of each key")
    func keys() throws {
        try expectAtom(MetadataKeysAtom(keys: [.init(mdta: "com.apple.quicktime.make"), .init(mdta: "com.example.take")]), encodesTo: hex(
            "00000048 6B657973",  // size 72, 'keys'
            "00 000000",          // version 0, flags 0
            "00000002",           // entry count 2
            "00000020 6D647461",  // key 1: size 32, namespace 'mdta'
            "636F6D2E 6170706C 652E7175 69636B74 696D652E 6D616B65",  // "com.apple.quicktime.make"
            "00000018 6D647461",  // key 2: size 24, namespace 'mdta'
            "636F6D2E 6578616D 706C652E 74616B65"  // "com.example.take"
        ))
    }

    @Test("ilst: item atoms typed by key index, each holding data atoms")
    func itemList() throws {
        let list = MetadataItemListAtom(items: [
            .init(keyIndex: 1, values: [MetadataValueAtom(.string("Apple")), MetadataValueAtom(.string("Canon"))]),
            .init(keyIndex: 2, values: [MetadataValueAtom(.int(7))]),
        ])
        try expectAtom(list, encodesTo: hex(
            "00000053 696C7374",  // size 83, 'ilst'
            "00000032 00000001",  // item: size 50, key index 1
            "00000015 64617461 00000001 00000000 4170706C65",  // data: UTF-8 "Apple"
            "00000015 64617461 00000001 00000000 43616E6F6E",  // data: UTF-8 "Canon"
            "00000019 00000002",  // item: size 25, key index 2
            "00000011 64617461 00000015 00000000 07"           // data: signed integer 7
        ))
    }

    /// `meta` for make "Apple" and com.example.take 7, as Apple lays it out (no version and flags).
    static let appleMeta = hex(
        "000000AF 6D657461",           // size 175, 'meta'
        "00000021 68646C72",           // hdlr: size 33
        "00000000 00000000 6D647461",  //   version and flags, component type 0, subtype 'mdta'
        "00000000 00000000 00000000 00",  // reserved, empty name
        "00000048 6B657973",           // keys: size 72
        "00000000 00000002",           //   version and flags, 2 keys
        "00000020 6D647461",           //   key 1: size 32, 'mdta'
        "636F6D2E 6170706C 652E7175 69636B74 696D652E 6D616B65",  // "com.apple.quicktime.make"
        "00000018 6D647461",           //   key 2: size 24, 'mdta'
        "636F6D2E 6578616D 706C652E 74616B65",  // "com.example.take"
        "0000003E 696C7374",           // ilst: size 62
        "0000001D 00000001",           //   item: size 29, key 1
        "00000015 64617461 00000001 00000000 4170706C65",  // "Apple"
        "00000019 00000002",           //   item: size 25, key 2
        "00000011 64617461 00000015 00000000 07"           // 7
    )

    @Test("meta: hdlr, keys and ilst, without version and flags")
    func metadata() throws {
        let meta = MetadataAtom(items: [.make("Apple"), MetadataItem(key: "com.example.take", value: .int(7))])
        try expectAtom(meta, encodesTo: Self.appleMeta)
    }

    @Test("meta: the ISO full-atom form FFmpeg writes reads the same")
    func metadataFullAtom() throws {
        let body = hex("00 000000") + Self.appleMeta.dropFirst(8)
        #expect(try MetadataAtom(bodyBytes: body[...]).items == [.make("Apple"), MetadataItem(key: "com.example.take", value: .int(7))])
    }

    @Test("meta: items sharing a key are written under one key, and read back grouped")
    func sharedKeys() throws {
        let meta = MetadataAtom(items: [.make("Apple"), MetadataItem(key: "com.example.take", value: .int(7)), .make("Canon")])
        #expect(meta.keys == MetadataKeysAtom(keys: [.init(mdta: "com.apple.quicktime.make"), .init(mdta: "com.example.take")]))
        #expect(meta.itemList.items.map(\.keyIndex) == [1, 2])
        #expect(meta.itemList.items[0].values == [MetadataValueAtom(.string("Apple")), MetadataValueAtom(.string("Canon"))])
        #expect(try MetadataAtom(bodyBytes: meta.encoded.dropFirst(8)).items
                == [.make("Apple"), .make("Canon"), MetadataItem(key: "com.example.take", value: .int(7))])
    }

    @Test("meta: keys of other namespaces and unknown atoms are skipped")
    func otherNamespaces() throws {
        let body = MetadataAtom.handler.encoded
            + atomBytes("free", [1, 2, 3])
            + MetadataKeysAtom(keys: [.init(namespace: "udta", value: Array("\u{A9}nam".utf8)), .init(mdta: "com.example.take")]).encoded
            + MetadataItemListAtom(items: [.init(keyIndex: 1, values: [MetadataValueAtom(.string("x"))]),
                                           .init(keyIndex: 2, values: [MetadataValueAtom(.int(7))])]).encoded
        #expect(try MetadataAtom(bodyBytes: body[...]).items == [MetadataItem(key: "com.example.take", value: .int(7))])
    }
}

@Suite("Metadata items")
struct MetadataItemTests {
    @Test("Apple's keys")
    func appleKeys() {
        #expect(MetadataItem.creationDate("2026-01-01T09:30:00+0100")
                == MetadataItem(key: "com.apple.quicktime.creationdate", value: .string("2026-01-01T09:30:00+0100")))
        #expect(MetadataItem.location(iso6709: "+37.3317-122.0302/")
                == MetadataItem(key: "com.apple.quicktime.location.ISO6709", value: .string("+37.3317-122.0302/")))
        #expect(MetadataItem.make("Apple") == MetadataItem(key: "com.apple.quicktime.make", value: .string("Apple")))
        #expect(MetadataItem.model("iPhone") == MetadataItem(key: "com.apple.quicktime.model", value: .string("iPhone")))
        #expect(MetadataItem.software("17.0") == MetadataItem(key: "com.apple.quicktime.software", value: .string("17.0")))
        #expect(MetadataItem.location(latitude: 37.3317, longitude: -122.0302, altitude: 50)
                == MetadataItem(key: "com.apple.quicktime.location.ISO6709", value: .string("+37.3317-122.0302+050.000/")))
        #expect(MetadataItem.location(latitude: 91, longitude: 0) == nil)
    }

    @Test("ISO 6709: ±DD.DDDD±DDD.DDDD[±AAA.AAA]/, rounded half away from zero",
          arguments: [
              (37.3317, -122.0302, 50.0 as Double?, "+37.3317-122.0302+050.000/"),
              (-33.8688, 151.2093, nil, "-33.8688+151.2093/"),
              (0, 0, 0, "+00.0000+000.0000+000.000/"),
              (-0.00004, -0.00004, -0.0004, "+00.0000+000.0000+000.000/"),  // rounds to zero: no minus
              (5.5, 5.5, -12.3456, "+05.5000+005.5000-012.346/"),
              (-5.00006, 9.99996, 0.0005, "-05.0001+010.0000+000.001/"),
              (90, -180, 8848.86, "+90.0000-180.0000+8848.860/"),
          ])
    func iso6709(_ latitude: Double, _ longitude: Double, _ altitude: Double?, _ expected: String) {
        #expect(MetadataItem.iso6709(latitude: latitude, longitude: longitude, altitude: altitude) == expected)
    }

    @Test("ISO 6709: coordinates out of range or not finite give nil")
    func iso6709Invalid() {
        #expect(MetadataItem.iso6709(latitude: 90.00001, longitude: 0) == nil)
        #expect(MetadataItem.iso6709(latitude: 0, longitude: -180.1) == nil)
        #expect(MetadataItem.iso6709(latitude: .nan, longitude: 0) == nil)
        #expect(MetadataItem.iso6709(latitude: 0, longitude: .infinity) == nil)
        #expect(MetadataItem.iso6709(latitude: 0, longitude: 0, altitude: .nan) == nil)
        #expect(MetadataItem.iso6709(latitude: 0, longitude: 0, altitude: 2e9) == nil)
    }

    @Test("creation date from a timestamp: UTC in Apple's style",
          arguments: [
              (QuickTimeTimestamp(secondsSince1904: 0), "1904-01-01T00:00:00+0000"),
              (QuickTimeTimestamp(unixSeconds: 0), "1970-01-01T00:00:00+0000"),
              (QuickTimeTimestamp(unixSeconds: 946_684_799), "1999-12-31T23:59:59+0000"),
              (QuickTimeTimestamp(unixSeconds: 951_868_800), "2000-03-01T00:00:00+0000"),  // after 2000's leap day
              (QuickTimeTimestamp(unixSeconds: 1_709_210_096), "2024-02-29T12:34:56+0000"),
              (QuickTimeTimestamp(unixSeconds: 1_767_225_600), "2026-01-01T00:00:00+0000"),
              (QuickTimeTimestamp(secondsSince1904: 0xFFFF_FFFF), "2040-02-06T06:28:15+0000"),  // the 32-bit limit
          ])
    func creationDate(_ time: QuickTimeTimestamp, _ expected: String) {
        #expect(MetadataItem.creationDate(time) == MetadataItem.creationDate(expected))
    }
}

@Suite("Metadata: hostile input")
struct MetadataHostileInputTests {
    /// The body of a `meta` atom holding `children`.
    func meta(_ children: [UInt8]...) -> [UInt8] { children.flatMap { $0 } }

    let handler = MetadataAtom.handler.encoded
    let twoKeys = MetadataKeysAtom(keys: [.init(mdta: "a"), .init(mdta: "b")]).encoded

    @Test("keys: a count past the atom, and key sizes below 8 or past the end")
    func hostileKeys() {
        expectFormatError(.tableLargerThanAtom, atom: "keys") {
            _ = try MetadataKeysAtom(bodyBytes: hex("00000000 FFFFFFFF 00000009 6D647461 61")[...])
        }
        expectFormatError(.invalidValue, atom: "keys") {
            _ = try MetadataKeysAtom(bodyBytes: hex("00000000 00000001 00000004 6D647461")[...])
        }
        expectFormatError(.invalidValue, atom: "keys") {
            _ = try MetadataKeysAtom(bodyBytes: hex("00000000 00000001 00000064 6D647461 61")[...])
        }
        expectFormatError(.invalidValue, atom: "keys") {
            _ = try MetadataKeysAtom(bodyBytes: hex("00000000 00000001 FFFFFFFF 6D647461 61")[...])
        }
    }

    @Test("ilst: item sizes below the header, past the atom, 64-bit, and stray bytes")
    func hostileItemList() {
        for body in [hex("00000003 00000001"), hex("00000064 00000001 00000000"), hex("FFFFFFFF 00000001"),
                     hex("00000001 00000001 00000000 00000020"), hex("00000000 00000001 00000011 64617461 00000015 00000000 07 00"),
                     hex("0000000D 00000001 0000000D 64617461 00")] {
            expectFormatError(.invalidAtomSize, atom: "ilst") { _ = try MetadataItemListAtom(bodyBytes: body[...]) }
        }
        // A data atom inside an item that claims more than the item holds.
        expectFormatError(.invalidAtomSize, atom: "ilst") {
            _ = try MetadataItemListAtom(bodyBytes: hex("00000018 00000001 00000040 64617461 00000001 00000000")[...])
        }
        // A data atom too short for its type and locale.
        expectFormatError(.truncatedAtom, atom: "data") {
            _ = try MetadataItemListAtom(bodyBytes: hex("00000014 00000001 0000000C 64617461 00000001")[...])
        }
    }

    @Test("meta: a missing or foreign handler, items without keys, key indexes out of range")
    func hostileMeta() throws {
        let item1 = MetadataItemListAtom(items: [.init(keyIndex: 1, values: [MetadataValueAtom(.int(1))])]).encoded
        expectFormatError(.missingAtom, atom: "hdlr") { _ = try MetadataAtom(bodyBytes: meta(twoKeys, item1)[...]) }
        let itunes = HandlerAtom(componentType: FourCC(rawValue: 0), componentSubtype: "mdir", name: "").encoded
        expectFormatError(.invalidValue, atom: "hdlr") { _ = try MetadataAtom(bodyBytes: meta(itunes, twoKeys, item1)[...]) }
        expectFormatError(.missingAtom, atom: "keys") { _ = try MetadataAtom(bodyBytes: meta(handler, item1)[...]) }
        for index: UInt32 in [0, 3, 0xFFFF_FFFF] {
            let item = MetadataItemListAtom(items: [.init(keyIndex: index, values: [MetadataValueAtom(.int(1))])]).encoded
            expectFormatError(.invalidValue, atom: "ilst") { _ = try MetadataAtom(bodyBytes: meta(handler, twoKeys, item)[...]) }
        }
        // A child that claims more than the meta holds.
        expectFormatError(.invalidAtomSize, atom: "meta") {
            _ = try MetadataAtom(bodyBytes: meta(handler, hex("00001000 6B657973 00000000"))[...])
        }
        // A handler with nothing after its type: the error names hdlr.
        expectFormatError(.truncatedAtom, atom: "hdlr") {
            _ = try MetadataAtom(bodyBytes: meta(hex("00000014 68646C72 00000000 00000000 6D647461"))[...])
        }
        // An empty meta with a handler and no items is fine.
        #expect(try MetadataAtom(bodyBytes: handler[...]).items.isEmpty)
    }

    @Test("every cut and every byte flip of a meta either reads or throws MovieFormatError")
    func mutations() {
        let body = Array(MetadataAtomBytesTests.appleMeta.dropFirst(8))
        var outcomes = (read: 0, threw: 0)
        func attempt(_ bytes: [UInt8]) {
            // Typed throws: anything thrown is a MovieFormatError; a crash would end the test run.
            do throws(MovieFormatError) {
                _ = try MetadataAtom(bodyBytes: bytes[...])
                outcomes.read += 1
            } catch {
                #expect(error.atom != nil, "\(error.message)")
                outcomes.threw += 1
            }
        }
        for length in 0..<body.count { attempt(Array(body.prefix(length))) }
        for index in body.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] where body[index] != value {
                var mutated = body
                mutated[index] = value
                attempt(mutated)
            }
        }
        #expect(outcomes.threw > 0 && outcomes.read > 0)
    }
}

@Suite("Metadata in a written movie")
struct WrittenMovieMetadataTests {
    static let items: [MetadataItem] = [
        .creationDate(creation), .location(iso6709: "+37.3317-122.0302+050.000/"), .make("Apple"),
        MetadataItem(key: "com.example.gain", value: .double(0.25)),
    ]

    /// An audio-only movie of 100 frames, with `metadata`.
    static func movie(metadata: [MetadataItem]) throws -> [UInt8] {
        let sink = InMemoryMovieSink()
        let writer = MovieWriter(sink: sink, configuration: .init(creationTime: creation, metadata: metadata))
        let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48000, channelCount: 1)))
        try writer.appendAudioFrames([UInt8](repeating: 0, count: 200), to: audio)
        try writer.finish()
        return sink.bytes
    }

    @Test("moov/meta follows the tracks and reads back as the items written")
    func readsBack() throws {
        let info = try MovieInfo(source: InMemoryMovieSource(Self.movie(metadata: Self.items)))
        let moov = try #require(info.tree.atom("moov"))
        #expect(moov.children.map(\.type) == ["mvhd", "trak", "meta"])
        #expect(moov.child("meta")?.children.map(\.type) == ["hdlr", "keys", "ilst"])
        #expect(info.metadata == Self.items)
    }

    @Test("no metadata, no meta atom")
    func noMetadata() throws {
        let info = try MovieInfo(source: InMemoryMovieSource(Self.movie(metadata: [])))
        #expect(info.tree.atom("moov")?.children.map(\.type) == ["mvhd", "trak"])
        #expect(info.metadata.isEmpty)
    }

    @Test("MovieInfo: a hostile keys count is reported naming keys, the rest still reads; a non-mdta meta is skipped")
    func hostileInMovie() throws {
        let file = try Self.movie(metadata: Self.items)
        let meta = try #require(MovieInfo(source: InMemoryMovieSource(file)).tree.atom("moov")?.child("meta"))
        let keysOffset = Int(meta.offset) + 8 + 33  // meta header, then the 33-byte hdlr
        #expect(Array(file[keysOffset + 4..<keysOffset + 8]) == Array("keys".utf8))
        var hostile = file
        for i in 12..<16 { hostile[keysOffset + i] = 0xFF }  // the key count
        let damaged = try MovieInfo(source: InMemoryMovieSource(hostile))
        #expect(damaged.metadata.isEmpty)
        #expect(damaged.metadataProblem?.contains("'keys'") == true, "\(damaged.metadataProblem ?? "no problem reported")")
        #expect(damaged.tracks.count == 1, "broken metadata does not hide the tracks")

        var itunes = file
        let subtype = Int(meta.offset) + 8 + 16  // hdlr size, type, version and flags, component type
        #expect(Array(itunes[subtype..<subtype + 4]) == Array("mdta".utf8))
        itunes.replaceSubrange(subtype..<subtype + 4, with: Array("mdir".utf8))
        #expect(try MovieInfo(source: InMemoryMovieSource(itunes)).metadata.isEmpty)
    }

    @Test("MovieInfo reads an mdta meta inside udta, where older FFmpeg put it")
    func udtaMeta() throws {
        let mvhd = MovieHeaderAtom(creationTime: creation, modificationTime: creation, timescale: 600, duration: 0, nextTrackID: 1)
        let moov = atomBytes("moov", mvhd.encoded + atomBytes("udta", MetadataAtom(items: Self.items).encoded))
        #expect(try MovieInfo(source: InMemoryMovieSource(moov)).metadata == Self.items)
    }
}
