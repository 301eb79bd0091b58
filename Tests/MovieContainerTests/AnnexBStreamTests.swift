import Testing
@testable import MovieContainer

/// The Annex-B scanner against the definition it implements (ITU-T H.264 Annex B: a NAL unit
/// runs from one `00 00 01` to the next, zero bytes before a start code are not part of it).
@Suite struct AnnexBStreamTests {
    /// The definition, byte by byte: the scanner this library used before it scanned sixteen
    /// bytes at a time.
    static func referenceNALUnits(_ bytes: [UInt8]) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var start: Int?
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                if let s = start {
                    var end = i
                    while end > s, bytes[end - 1] == 0 { end -= 1 }
                    units.append(s..<end)
                }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start, s < bytes.count { units.append(s..<bytes.count) }
        return units.filter { !$0.isEmpty }
    }

    /// A small deterministic generator (SplitMix64), so a failure can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("start codes are found wherever they fall in the sixteen-byte blocks, as byte by byte")
    func scannerMatchesDefinition() {
        var generator = Generator(state: 7)
        // Mostly zeros and ones, so start codes, runs of zeros and near misses are common.
        let alphabet: [UInt8] = [0, 0, 0, 0, 1, 1, 3, 0x65, 0xFF]
        for length in Array(0...70) + [127, 128, 129, 1000, 4099] {
            for _ in 0..<40 {
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
                let found = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
                #expect(found == Self.referenceNALUnits(bytes), "\(bytes)")
            }
        }
    }

    @Test("a start code at every offset of a block, three- and four-byte, with trailing zeros")
    func startCodeAtEveryOffset() {
        for offset in 0..<40 {
            for prefix in [[0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0, 0, 1]] as [[UInt8]] {
                var bytes = [UInt8](repeating: 0x42, count: offset)
                bytes += prefix + [0x65, 0x88] + [0, 0] + [0, 0, 1, 0x41] + [UInt8](repeating: 0x42, count: 20)
                let found = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
                #expect(found == Self.referenceNALUnits(bytes))
                #expect(found.count == 2)
                #expect(Array(bytes[found[0]]) == [0x65, 0x88], "the zeros before the next start code are not part of the unit")
            }
        }
    }

    @Test("the fixtures split as byte by byte, and samples are the units behind their lengths")
    func fixturesMatchDefinition() throws {
        for name in ["testsrc-ipp.264", "testsrc-bframes.264"] {
            let bytes = try Fixture.bytes(name)
            #expect(bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) } == Self.referenceNALUnits(bytes))
            let stream = try AnnexBStream(annexB: bytes)
            for unit in stream.accessUnits {
                var expected: [UInt8] = []
                for nal in unit.nalUnits {
                    expected += [UInt8(nal.count >> 24), UInt8(nal.count >> 16 & 0xFF), UInt8(nal.count >> 8 & 0xFF), UInt8(nal.count & 0xFF)]
                    expected += nal
                }
                #expect(unit.lengthPrefixed == expected)
                #expect(unit.lengthPrefixedCount == expected.count)
                #expect(unit.nalUnits.allSatisfy { ![7, 8, 9].contains($0[0] & 0x1F) }, "parameter sets and delimiters stay out")
            }
        }
    }

    @Test("an SEI between two slices of a picture goes with the next picture, as before")
    func unitsBetweenSlicesWaitForTheNextPicture() throws {
        let bytes = try Fixture.bytes("testsrc-ipp.264")
        let plain = try AnnexBStream(annexB: bytes)
        let units = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
        let secondSlice = try #require(units.filter { [1, 5].contains(bytes[$0.lowerBound] & 0x1F) }.dropFirst().first)
        // A second slice of the same picture: the slice's header with first_mb_in_slice 1
        // (ue "010") instead of 0 (ue "1"), its other bits shifted along.
        let header = Array(bytes[secondSlice.lowerBound + 1..<secondSlice.lowerBound + 17])
        #expect(header.first! & 0x80 != 0, "the fixture's slice starts at macroblock 0")
        var bits = [0, 1, 0] + header.flatMap { byte in (0..<8).map { Int(byte >> (7 - $0) & 1) } }.dropFirst()
        bits += [1] + [Int](repeating: 0, count: (8 - (bits.count + 1) % 8) % 8)
        let payload = stride(from: 0, to: bits.count, by: 8).map { i in bits[i..<i + 8].reduce(UInt8(0)) { $0 << 1 | UInt8($1) } }
        let continuation = [bytes[secondSlice.lowerBound]] + payload
        let sei: [UInt8] = [0x06, 0x05, 0x01, 0xAA, 0x80]
        var edited = Array(bytes[..<secondSlice.upperBound])
        edited += [0, 0, 1] + sei + [0, 0, 1] + continuation
        edited += bytes[secondSlice.upperBound...]

        let stream = try AnnexBStream(annexB: edited)
        #expect(stream.accessUnits.count == plain.accessUnits.count)
        #expect(stream.accessUnits[1].nalUnits == plain.accessUnits[1].nalUnits + [continuation])
        #expect(stream.accessUnits[2].nalUnits == [sei] + plain.accessUnits[2].nalUnits)
        #expect(stream.accessUnits.map(\.presentationIndex) == plain.accessUnits.map(\.presentationIndex))
    }
}

/// Reading a stream a piece at a time, as the muxer does while it writes, finds what reading it
/// whole finds; pictures get the display order sorting gives.
@Suite struct StreamingParseTests {
    typealias Generator = AnnexBStreamTests.Generator

    /// Scans `bytes` in pieces ending at `limits`, then finishes.
    static func scanInPieces(_ bytes: [UInt8], limits: [Int]) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var scanner = AnnexBStream.UnitScanner()
        bytes.withUnsafeBytes { buffer in
            for limit in limits { scanner.scan(buffer, upTo: limit, into: &units) }
            scanner.finish(buffer, into: &units)
        }
        return units
    }

    @Test("start codes split across pieces are found as in one pass, wherever the pieces end")
    func scannerInPieces() throws {
        var generator = Generator(state: 11)
        let alphabet: [UInt8] = [0, 0, 0, 0, 1, 1, 3, 0x65, 0xFF]
        for length in [0, 1, 2, 3, 5, 17, 18, 19, 33, 34, 35, 40, 50, 51, 66, 67, 100, 333] {
            for _ in 0..<60 {
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
                let limits = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0...length, using: &generator) }.sorted()
                #expect(Self.scanInPieces(bytes, limits: limits) == AnnexBStreamTests.referenceNALUnits(bytes), "\(bytes) \(limits)")
            }
        }
        for name in ["testsrc-ipp.264", "testsrc-bframes.264", "testsrc-bframes-long.264"] {
            let bytes = try Fixture.bytes(name)
            let whole = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
            for piece in [1, 2, 3, 7, 16, 100, 4096] {
                #expect(Self.scanInPieces(bytes, limits: Array(stride(from: piece, to: bytes.count, by: piece))) == whole, "\(name) in \(piece)-byte pieces")
            }
        }
    }

    @Test("pictures parsed a few units at a time are the access units of the whole stream")
    func picturesInPieces() throws {
        var generator = Generator(state: 5)
        for name in ["testsrc-ipp.264", "testsrc-bframes.264", "testsrc-bframes-long.264"] {
            let bytes = try Fixture.bytes(name)
            let stream = try AnnexBStream(annexB: bytes)
            let units = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
            let headers = units.map { bytes[$0.lowerBound] }
            var parser = AnnexBStream.PictureParser(sps: stream.configuration.avc!.sps)
            var pictures: [(units: [Range<Int>], isSync: Bool)] = []
            var start = 0
            try bytes.withUnsafeBytes { buffer in
                while start <= units.count {
                    let end = min(units.count, start + Int.random(in: 0...5, using: &generator))
                    // A fresh `kept` for each piece, as the muxer's reading thread uses.
                    var kept: [Range<Int>] = [], found: [AnnexBStream.PictureParser.Picture] = []
                    try parser.add(units[start..<end], headers: headers[start..<end], of: buffer, keeping: &kept, pictures: &found)
                    if end == units.count { parser.finish(keeping: &kept, pictures: &found) }
                    pictures += found.map { (Array(kept[$0.nalUnits]), $0.isSync) }
                    if end == units.count { break }
                    start = end
                }
            }
            #expect(pictures.map(\.units) == stream.accessUnits.map { Array($0.nalUnitRanges) }, "\(name)")
            #expect(pictures.map(\.isSync) == stream.accessUnits.map(\.isSync), "\(name)")
        }
    }

    @Test("the reorder bound is read from the VUI's bitstream restriction (as ffmpeg's trace_headers prints it)")
    func reorderBoundFromTheSPS() throws {
        // x264 writes max_num_reorder_frames: 0 without B-frames, 2 with a B-pyramid;
        // testsrc-hrd.264 has it after NAL HRD parameters (ffmpeg's trace: bit 245, "011").
        let expected = ["testsrc-ipp.264": 0, "testsrc-bframes.264": 2, "testsrc-bframes-long.264": 2, "testsrc-hrd.264": 2]
        for (name, bound) in expected {
            let stream = try AnnexBStream(annexB: Fixture.bytes(name))
            #expect(stream.configuration.avc!.sps.maxNumReorderFrames == UInt32(bound), "\(name)")
            #expect(stream.reorderDepth <= bound, "\(name): the stream keeps the bound it states")
        }
    }

    @Test("display positions given while reading equal sorting, with the least bound a stream keeps; one less is caught")
    func presentationOrderMatchesSorting() throws {
        var generator = Generator(state: 3)
        for _ in 0..<400 {
            // IDR periods of random length; within each, display positions shuffled by local swaps.
            var pictures: [(period: Int, poc: Int)] = []
            for period in 0..<Int.random(in: 1...3, using: &generator) {
                var display = Array(0..<Int.random(in: 1...24, using: &generator))
                for _ in 0..<Int.random(in: 0...12, using: &generator) where display.count > 1 {
                    let i = Int.random(in: 0..<display.count - 1, using: &generator)
                    let j = min(display.count - 1, i + Int.random(in: 1...4, using: &generator))
                    display.swapAt(i, j)
                }
                pictures += display.map { (period, 2 * $0 + 64) }
            }
            let sorted = pictures.indices.sorted { (pictures[$0].period, pictures[$0].poc, $0) < (pictures[$1].period, pictures[$1].poc, $1) }
            let bound = pictures.indices.map { i in
                pictures[..<i].filter { $0.period == pictures[i].period && $0.poc > pictures[i].poc }.count
            }.max() ?? 0

            var order = PresentationOrder(reorderBound: bound)
            var shown: [Int] = []
            for picture in pictures {
                try order.add(idrPeriod: picture.period, pictureOrderCount: picture.poc) { decode, presentation in
                    #expect(presentation == shown.count)
                    shown.append(decode)
                }
            }
            order.finish { decode, _ in shown.append(decode) }
            #expect(shown == sorted)

            if bound > 0 {
                var tight = PresentationOrder(reorderBound: bound - 1)
                #expect(throws: PresentationOrder.BoundExceeded.self) {
                    for picture in pictures { try tight.add(idrPeriod: picture.period, pictureOrderCount: picture.poc) { _, _ in } }
                }
            }
        }
    }
}
