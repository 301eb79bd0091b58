import Foundation
import Testing
@testable import MovieContainer

// The reader against hostile input: the files in Fixtures/corrupt (made from scratch by
// Fixtures/corrupt/make-corrupt.py, which describes each one) must give an exact
// MovieFormatError, or parse to the tree the format allows, and never crash, hang or allocate
// what a table merely claims.

/// Files under Fixtures/, found from this source file's path.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MovieContainerTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .appendingPathComponent("Fixtures")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(path)))
    }

    static func corrupt(_ name: String) throws -> InMemoryMovieSource {
        InMemoryMovieSource(try bytes("corrupt/" + name))
    }
}

/// Expects `body` to throw a ``MovieFormatError`` with `code` naming `atom`.
func expectFormatError(_ code: MovieFormatError.Code, atom: FourCC?, sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: () throws -> Void) {
    let error = #expect(throws: MovieFormatError.self, sourceLocation: sourceLocation, performing: body)
    #expect(error?.code == code, "\(error?.message ?? "no error")", sourceLocation: sourceLocation)
    #expect(error?.atom == atom, "\(error?.message ?? "no error")", sourceLocation: sourceLocation)
}

/// An atom built in the test: a 32-bit size, the type, the body.
func atomBytes(_ type: String, _ body: [UInt8] = []) -> [UInt8] {
    let size = UInt32(8 + body.count)
    return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
}

@Suite("Reader: hostile input")
struct ReaderHostileInputTests {
    @Test("the fixtures exist and stay small")
    func fixturesAreSmall() throws {
        for name in ["truncated-moov.mov", "stsz-huge-count.mov", "deep-nesting.mov", "random-bytes.bin", "empty.mov"] {
            let bytes = try Fixture.bytes("corrupt/" + name)
            #expect(bytes.count <= 512, "\(name)")
        }
    }

    @Test("a moov that claims more bytes than the file holds is marked truncated, and MovieInfo refuses it")
    func truncatedMoov() throws {
        let source = try Fixture.corrupt("truncated-moov.mov")
        let tree = try AtomTree(source: source)
        #expect(tree.atoms.map(\.type) == ["ftyp", "moov"])
        let moov = try #require(tree.atom("moov"))
        #expect(moov.offset == 20 && moov.size == 4096)
        #expect(moov.isTruncated)
        #expect(moov.children.isEmpty)
        expectFormatError(.truncatedAtom, atom: "moov") { _ = try MovieInfo(tree: tree) }
    }

    @Test("a file that ends inside an atom header")
    func truncatedHeader() throws {
        let source = try Fixture.corrupt("truncated-header.mov")
        expectFormatError(.truncatedAtom, atom: nil) { _ = try AtomTree(source: source) }
    }

    @Test("a 32-bit size smaller than the 8-byte header, at top level and inside a container")
    func sizeSmallerThanHeader() throws {
        let top = try Fixture.corrupt("atom-size-3.mov")
        expectFormatError(.invalidAtomSize, atom: "free") { _ = try AtomTree(source: top) }
        let child = try Fixture.corrupt("child-size-3.mov")
        expectFormatError(.invalidAtomSize, atom: "mvhd") { _ = try AtomTree(source: child) }
    }

    @Test("a 64-bit size smaller than the 16-byte header")
    func largeSizeBelowHeader() throws {
        let source = try Fixture.corrupt("largesize-below-16.mov")
        expectFormatError(.invalidAtomSize, atom: "mdat") { _ = try AtomTree(source: source) }
    }

    @Test("a 64-bit size field cut off by the end of the file")
    func largeSizeWithoutRoom() throws {
        let source = try Fixture.corrupt("largesize-no-room.mov")
        expectFormatError(.truncatedAtom, atom: "mdat") { _ = try AtomTree(source: source) }
    }

    @Test("a 64-bit size whose end overflows: marked truncated, the walk stops")
    func largeSizeOverflow() throws {
        let source = try Fixture.corrupt("largesize-overflow.mov")
        let tree = try AtomTree(source: source)
        #expect(tree.atoms.map(\.type) == ["ftyp", "mdat"])
        let mdat = try #require(tree.atom("mdat"))
        #expect(mdat.size == UInt64.max)
        #expect(mdat.headerSize == 16)
        #expect(mdat.isTruncated)
        #expect(mdat.body == nil)
        expectFormatError(.missingAtom, atom: "moov") { _ = try MovieInfo(tree: tree) }
    }

    @Test("a child that claims more bytes than its parent")
    func childLargerThanParent() throws {
        let source = try Fixture.corrupt("child-larger-than-parent.mov")
        expectFormatError(.invalidAtomSize, atom: "mvhd") { _ = try AtomTree(source: source) }
    }

    @Test("size 0 at top level runs to the end of the file and parses")
    func sizeZeroTopLevel() throws {
        let source = try Fixture.corrupt("size0-top-level.mov")
        let tree = try AtomTree(source: source)
        #expect(tree.atoms.map(\.type) == ["ftyp", "moov", "mdat"])
        let mdat = try #require(tree.atom("mdat"))
        #expect(mdat.offset == 404)
        #expect(mdat.size == 24)  // the 8-byte header and 16 bytes, to the end of the file
        #expect(mdat.offset + mdat.size == tree.fileSize)
        #expect(!mdat.isTruncated)
        #expect(mdat.body.map(Array.init) == Array(0..<16))
        let info = try MovieInfo(tree: tree)
        #expect(info.tracks.count == 1)
        #expect(info.tracks[0].sampleCount == 1)
    }

    @Test("size 0 inside a container runs to the end of the parent, not the file")
    func sizeZeroInContainer() throws {
        let source = try Fixture.corrupt("size0-in-container.mov")
        let tree = try AtomTree(source: source)
        #expect(tree.atoms.map(\.type) == ["ftyp", "moov", "free"])
        #expect(tree.atoms.map(\.size) == [20, 136, 8])
        let moov = try #require(tree.atom("moov"))
        #expect(moov.children.map(\.type) == ["mvhd", "free"])
        let free = moov.children[1]
        #expect(free.offset == 136)
        #expect(free.size == 20)  // header + 12 bytes: the rest of moov
        #expect(free.body?.count == 12)
        #expect(try MovieInfo(tree: tree).movieHeader.timescale == 600)
    }

    @Test("a table that claims 2^32 − 1 entries in a tiny atom throws at once, without allocating",
          arguments: [("stsz-huge-count.mov", "stsz"), ("stts-huge-count.mov", "stts"), ("stco-huge-count.mov", "stco")] as [(String, FourCC)])
    func hugeTable(_ name: String, _ table: FourCC) throws {
        let source = try Fixture.corrupt(name)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            expectFormatError(.tableLargerThanAtom, atom: table) { _ = try MovieInfo(source: source) }
        }
        #expect(elapsed < .seconds(1))
        // The same through the tree node.
        let tree = try AtomTree(source: source)
        let node = try #require(tree.atom("moov")?.descendant(["trak", "mdia", "minf", "stbl", table]))
        #expect(node.size == (table == "stsz" ? 20 : 16))
        expectFormatError(.tableLargerThanAtom, atom: table) {
            switch table {
            case "stsz": _ = try node.decode(SampleSizeAtom.self)
            case "stts": _ = try node.decode(TimeToSampleAtom.self)
            default: _ = try node.decode(ChunkOffsetAtom.self)
            }
        }
    }

    @Test("tables with huge counts in bodies built here: ctts, stss, stsc, co64, elst, stsd")
    func hugeTablesInline() throws {
        let count = hex("00000000 FFFFFFFF")  // version 0, flags 0, 2^32 − 1 entries
        expectFormatError(.tableLargerThanAtom, atom: "ctts") { _ = try CompositionOffsetAtom(bodyBytes: count[...]) }
        expectFormatError(.tableLargerThanAtom, atom: "stss") { _ = try SyncSampleAtom(bodyBytes: count[...]) }
        expectFormatError(.tableLargerThanAtom, atom: "stsc") { _ = try SampleToChunkAtom(bodyBytes: count[...]) }
        expectFormatError(.tableLargerThanAtom, atom: "co64") { _ = try ChunkOffset64Atom(bodyBytes: count[...]) }
        expectFormatError(.tableLargerThanAtom, atom: "elst") { _ = try EditListAtom(bodyBytes: (hex("01000000 FFFFFFFF") + zeros(20))[...]) }
        expectFormatError(.tableLargerThanAtom, atom: "stsd") { _ = try SampleDescriptionAtom(bodyBytes: (count + zeros(16))[...]) }
        // A constant-size stsz may claim any count: it holds no table.
        #expect(try SampleSizeAtom(bodyBytes: hex("00000000 00000004 FFFFFFFF")[...]).sampleCount == 0xFFFF_FFFF)
    }

    @Test("an stsd entry whose size does not fit the atom")
    func stsdEntrySize() throws {
        let source = try Fixture.corrupt("stsd-entry-size-huge.mov")
        expectFormatError(.invalidValue, atom: "stsd") { _ = try MovieInfo(source: source) }
        // Too small for the 16-byte sample description header.
        let small = hex("00000000 00000001", "00000004 61766331 00000000 00000000")
        expectFormatError(.invalidValue, atom: "stsd") { _ = try SampleDescriptionAtom(bodyBytes: small[...]) }
        // Larger than what is left, by one byte.
        let over = hex("00000000 00000001", "00000019 61766331 00000000 00000001 00000000 00000000")
        expectFormatError(.invalidValue, atom: "stsd") { _ = try SampleDescriptionAtom(bodyBytes: over[...]) }
    }

    @Test("atoms nested 20 deep throw treeTooLarge")
    func deepNesting() throws {
        let source = try Fixture.corrupt("deep-nesting.mov")
        // moov's children are at depth 1; the 16th nested container ('mdia') would list depth 17.
        expectFormatError(.treeTooLarge, atom: "mdia") { _ = try AtomTree(source: source) }
    }

    @Test("nesting at the depth limit parses; one more level throws")
    func nestingLimit() throws {
        func nested(_ levels: Int) -> [UInt8] {
            var inner = atomBytes("free")
            for level in 0..<levels { inner = atomBytes(level % 2 == 0 ? "mdia" : "trak", inner) }
            return atomBytes("moov", inner)
        }
        let tree = try AtomTree(source: InMemoryMovieSource(nested(15)))
        var node = try #require(tree.atom("moov"))
        var depth = 0
        while let child = node.children.first, child.type != "free" {
            node = child
            depth += 1
        }
        #expect(depth == 15)
        #expect(node.children.map(\.type) == ["free"])
        // The 16th container inside moov, counted from the outside, is the innermost 'mdia'.
        expectFormatError(.treeTooLarge, atom: "mdia") { _ = try AtomTree(source: InMemoryMovieSource(nested(16))) }
    }

    @Test("a moov without mvhd")
    func moovWithoutMovieHeader() throws {
        let source = try Fixture.corrupt("moov-without-mvhd.mov")
        let tree = try AtomTree(source: source)
        #expect(tree.atom("moov")?.children.map(\.type) == ["trak"])
        expectFormatError(.missingAtom, atom: "mvhd") { _ = try MovieInfo(tree: tree) }
    }

    @Test("random bytes: one atom claiming more than the file, and no movie")
    func randomBytes() throws {
        let source = try Fixture.corrupt("random-bytes.bin")
        #expect(source.size == 256)
        let tree = try AtomTree(source: source)
        #expect(tree.atoms.count == 1)
        #expect(tree.atoms[0].size == 0x4F95_4A56)  // the file's first four bytes
        #expect(tree.atoms[0].isTruncated)
        expectFormatError(.missingAtom, atom: "moov") { _ = try MovieInfo(tree: tree) }
    }

    @Test("an empty file has no atoms and no movie")
    func emptyFile() throws {
        let source = try Fixture.corrupt("empty.mov")
        let tree = try AtomTree(source: source)
        #expect(tree.fileSize == 0)
        #expect(tree.atoms.isEmpty)
        expectFormatError(.missingAtom, atom: "moov") { _ = try MovieInfo(source: source) }
    }

    @Test("a co64 offset whose sample runs past 2^64 throws instead of overflowing")
    func chunkOffsetOverflow() throws {
        let source = try Fixture.corrupt("co64-offset-overflow.mov")
        let info = try MovieInfo(source: source)
        let table = try #require(info.tracks.first?.sampleTable)
        #expect(table.usesLargeOffsets)
        #expect(table.chunkOffsets == [UInt64.max])
        expectFormatError(.invalidValue, atom: "co64") { _ = try table.samples() }
    }
}

@Suite("Reader: sample tables of a written movie")
struct WrittenMovieSampleTests {
    struct Appended {
        var data: [UInt8]
        var decodeTime: Int64
        var presentationTime: Int64
        var isSync: Bool
    }

    /// Four bytes of PCM frame `n`, different for every frame of the test.
    static func frame(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), 0xA5] }

    @Test("samples() gives back the offsets, times and sync flags of what was appended")
    func samplesMatchAppended() throws {
        let stream = try AnnexBStream(annexB: Fixture.bytes("testsrc-bframes.264"))
        // The fixture's own parameter sets, as copied by hand into AtomBytesTests.
        #expect(stream.configuration.avc?.sequenceParameterSets == [highSPS])
        #expect(stream.configuration.avc?.pictureParameterSets == [highPPS])
        let configuration = try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS])
        #expect(stream.reorderDepth > 0)

        let sink = InMemoryMovieSink()
        let writer = MovieWriter(sink: sink, configuration: .init(creationTime: creation))
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: configuration, timescale: 600))
        let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48000, channelCount: 2)))
        let frameDuration: Int64 = 20  // 30 fps at 600 ticks per second
        let audioFramesPerVideoFrame = 1600  // 1/30 s at 48 kHz
        // As x264 stamps them: the first frame is shown at 0, so decoding starts before 0.
        let delay = Int64(stream.reorderDepth) * frameDuration
        var appended: [Appended] = []
        for (index, unit) in stream.accessUnits.enumerated() {
            let sample = Appended(data: unit.lengthPrefixed, decodeTime: Int64(index) * frameDuration - delay,
                                  presentationTime: Int64(unit.presentationIndex) * frameDuration, isSync: unit.isSync)
            try writer.appendVideoSample(sample.data, to: video, decodeTime: sample.decodeTime,
                                         presentationTime: sample.presentationTime, isSync: sample.isSync)
            appended.append(sample)
            let first = index * audioFramesPerVideoFrame
            try writer.appendAudioFrames((first..<first + audioFramesPerVideoFrame).flatMap(Self.frame), to: audio)
        }
        let end = Int64(appended.count) * frameDuration - delay
        let summary = try writer.finish(endTimes: [video: end])
        let file = sink.bytes
        #expect(UInt64(file.count) == summary.fileSize)

        let info = try MovieInfo(source: InMemoryMovieSource(file))
        let mdat = try #require(info.tree.atom("mdat"))
        let mediaRange = (mdat.offset + UInt64(mdat.headerSize))..<(mdat.offset + mdat.size)

        // Video: every sample where and when it was appended.
        let videoTrack = try #require(info.videoTrack)
        // One edit: the media from the first presented instant, which hides the reorder delay.
        #expect(videoTrack.editList.map(\.mediaTime) == [delay])
        let videoSamples = try #require(videoTrack.sampleTable).samples()
        #expect(videoSamples.count == appended.count)
        for (index, (sample, expected)) in zip(videoSamples, appended).enumerated() {
            #expect(sample.size == UInt32(expected.data.count), "sample \(index)")
            #expect(mediaRange.contains(sample.offset) && mediaRange.contains(sample.offset + UInt64(sample.size) - 1))
            #expect(Array(file[Int(sample.offset)..<Int(sample.offset) + Int(sample.size)]) == expected.data, "sample \(index)")
            // Media time starts at the first decode time.
            #expect(sample.decodeTime == expected.decodeTime + delay, "sample \(index)")
            #expect(sample.duration == UInt32(frameDuration), "sample \(index)")
            #expect(sample.presentationTime == expected.presentationTime + delay, "sample \(index)")
            #expect(sample.isSync == expected.isSync, "sample \(index)")
        }
        #expect(videoSamples.contains { $0.isSync } && videoSamples.contains { !$0.isSync })

        // Audio: one sample per PCM frame, each at its bytes, time = frame number.
        let audioTrack = try #require(info.tracks.first { $0.mediaType == "soun" })
        let audioSamples = try #require(audioTrack.sampleTable).samples()
        #expect(audioSamples.count == appended.count * audioFramesPerVideoFrame)
        var misplaced: [Int] = []
        for (n, sample) in audioSamples.enumerated() {
            let start = Int(sample.offset)
            let ok = sample.size == 4 && sample.decodeTime == Int64(n) && sample.presentationTime == Int64(n)
                && sample.duration == 1 && sample.isSync && mediaRange.contains(sample.offset)
                && Array(file[start..<start + 4]) == Self.frame(n)
            if !ok { misplaced.append(n) }
        }
        #expect(misplaced.isEmpty, "first misplaced audio frames: \(misplaced.prefix(5))")

        // Media of the two tracks is interleaved in chunks, not one block after the other.
        let videoStarts = Set(videoSamples.map(\.offset))
        let firstAudio = try #require(audioSamples.first?.offset)
        #expect(videoStarts.contains { $0 > firstAudio })
    }
}
