import Testing
@_spi(Benchmarks) @testable import MovieContainer

// AtomBytesTests checks each atom type's encoding against bytes written out by hand. These tests
// check that a movie MovieWriter wrote holds exactly those encodings: every sample table (whose
// entries the writer streams from memory or scratch storage behind the header the atom type
// writes) and every other atom of the movie atom must equal the atom type's encoding of the
// values read back from it.

@Suite("Writer output as atom encodings")
struct WriterAtomBytesTests {
    /// A short recording: 30 fps video at time scale 600 and 48 kHz stereo PCM.
    struct Recording: Sendable, CustomStringConvertible {
        var video = true
        var audio = true
        /// Whether presentation differs from decode order (a `ctts`).
        var bFrames = true
        /// Every how many frames a sync sample comes; 1 leaves out `stss`.
        var keyframeInterval = 10
        var fragmented = false
        /// The bytes each table keeps in memory; a small block sends every table through
        /// scratch storage.
        var tableBlockSize = MovieWriter.defaultTableBlockSize

        var description: String {
            [video ? "video" : nil, audio ? "audio" : nil, bFrames && video ? "B-frames" : nil,
             video ? "keyframe every \(keyframeInterval)" : nil, fragmented ? "fragmented" : nil,
             tableBlockSize < 1024 ? "\(tableBlockSize)-byte table blocks" : nil].compactMap { $0 }.joined(separator: ", ")
        }

        /// The tables `stbl` must hold besides `stsd`, for a video or an audio track.
        func expectedTables(video isVideo: Bool) -> Set<FourCC> {
            var tables: Set<FourCC> = ["stts", "stsc", "stsz", "stco"]
            if isVideo && bFrames { tables.insert("ctts") }
            if isVideo && keyframeInterval > 1 { tables.insert("stss") }
            // Each sample's bytes (its value, repeated) read as NAL units give some pictures.
            if isVideo { tables.insert("sdtp") }
            return tables
        }
    }

    static let recordings: [Recording] = [
        Recording(),
        Recording(bFrames: false, keyframeInterval: 1),
        Recording(fragmented: true),
        Recording(tableBlockSize: 16),
        Recording(fragmented: true, tableBlockSize: 12),
        Recording(audio: false, keyframeInterval: 3),
        Recording(video: false),
    ]

    /// Records `recording` into memory and returns the file.
    static func record(_ recording: Recording) throws -> InMemoryMovieFile {
        var configuration = MovieWriter.Configuration(creationTime: creation, metadata: [.software("atom bytes test")])
        configuration.fragmentInterval = recording.fragmented ? .seconds(1) : nil
        let sink = InMemoryMovieSink()
        let writer = MovieWriter(sink: sink, configuration: configuration, tableBlockSize: recording.tableBlockSize)
        let video = recording.video ? try writer.addVideoTrack(VideoTrackFormat(
            h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 600)) : nil
        let audio = recording.audio ? try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48_000, channelCount: 2))) : nil
        for n in 0..<90 {
            if let video {
                // I P B B P B B…: B-frames are presented 40 ticks (two frames) after they are decoded.
                let offset: Int64 = recording.bFrames ? [0, 60, 0, 0][n % 4] : 0
                try writer.appendVideoSample([UInt8](repeating: UInt8(n & 0xFF), count: 100 + n * 13 % 700), to: video,
                                             decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20 + offset,
                                             isSync: n % recording.keyframeInterval == 0)
            }
            if let audio {
                try writer.appendAudioFrames([UInt8](repeating: 1, count: (1200 + n * 37 % 800) * 4), to: audio)
            }
        }
        var endTimes: [TrackID: Int64] = [:]
        if let video { endTimes[video] = 90 * 20 }
        if let audio { endTimes[audio] = 48_000 * 3 }
        try writer.finish(endTimes: endTimes)
        return InMemoryMovieFile(sink.bytes, capacity: sink.bytes.count)
    }

    /// The atom `node` as the file holds it, header included.
    static func writtenBytes(of node: AtomNode, in source: any MovieByteSource) throws -> [UInt8] {
        try source.read(at: node.offset, count: Int(node.size))
    }

    /// The encoding of the values the atom type reads from `node`, or `nil` for a type that is
    /// not a leaf atom with an atom type of its own.
    static func reencoded(_ node: AtomNode) throws -> [UInt8]? {
        switch node.type {
        case "stts": try node.decode(TimeToSampleAtom.self).encoded
        case "ctts": try node.decode(CompositionOffsetAtom.self).encoded
        case "stss": try node.decode(SyncSampleAtom.self).encoded
        case "sdtp": try node.decode(SampleDependencyTypeAtom.self).encoded
        case "stsc": try node.decode(SampleToChunkAtom.self).encoded
        case "stsz": try node.decode(SampleSizeAtom.self).encoded
        case "stco": try node.decode(ChunkOffsetAtom.self).encoded
        case "co64": try node.decode(ChunkOffset64Atom.self).encoded
        case "stsd": try node.decode(SampleDescriptionAtom.self).encoded
        case "mvhd": try node.decode(MovieHeaderAtom.self).encoded
        case "tkhd": try node.decode(TrackHeaderAtom.self).encoded
        case "elst": try node.decode(EditListAtom.self).encoded
        case "mdhd": try node.decode(MediaHeaderAtom.self).encoded
        case "hdlr": try node.decode(HandlerAtom.self).encoded
        case "vmhd": try node.decode(VideoMediaHeaderAtom.self).encoded
        case "smhd": try node.decode(SoundMediaHeaderAtom.self).encoded
        case "dref": try node.decode(DataReferenceAtom.self).encoded
        case "trex": try node.decode(TrackExtendsAtom.self).encoded
        default: nil
        }
    }

    /// Checks every sample table of every track in the movie atom of `source` against its
    /// atom type's encoding, and that `stbl` holds the tables `expected` gives for the track.
    static func expectSampleTablesMatch(in source: any MovieByteSource, expected: (_ isVideo: Bool) -> Set<FourCC>,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tree = try AtomTree(source: source)
        let moov = try #require(tree.atoms.last { $0.type == "moov" }, sourceLocation: sourceLocation)
        for trak in moov.children("trak") {
            let isVideo = trak.descendant(["mdia", "minf", "vmhd"]) != nil
            let stbl = try #require(trak.descendant(["mdia", "minf", "stbl"]), sourceLocation: sourceLocation)
            let tables = Set(stbl.children.map(\.type)).subtracting(["stsd"])
            #expect(tables == expected(isVideo), "\(isVideo ? "video" : "audio") track", sourceLocation: sourceLocation)
            for node in stbl.children {
                let encoded = try #require(try reencoded(node), "'\(node.type)' has an atom type", sourceLocation: sourceLocation)
                expectBytes(try writtenBytes(of: node, in: source), encoded, sourceLocation: sourceLocation)
            }
        }
    }

    @Test("each sample table the writer writes is its atom type's encoding", arguments: recordings)
    func sampleTablesAreTheirAtomEncodings(_ recording: Recording) throws {
        let file = try Self.record(recording)
        try Self.expectSampleTablesMatch(in: file, expected: recording.expectedTables(video:))
    }

    @Test("past 4 GiB the chunk offsets are co64, as ChunkOffset64Atom encodes them")
    func largeOffsetsAreTheirAtomEncoding() throws {
        let sink = SparseTestSink()
        let summary = try SampleTableSpillTests.record(.init(skip: (at: 120, bytes: 5 << 30), omitsMedia: true),
                                                       blockSize: 100, into: sink)
        #expect(summary.usesLargeOffsets)
        try Self.expectSampleTablesMatch(in: sink) { isVideo in
            isVideo ? ["stts", "ctts", "stss", "stsc", "stsz", "co64"] : ["stts", "stsc", "stsz", "co64"]
        }
    }

    @Test("tables longer than a block come back from scratch storage as their atom encodings")
    func longTablesAreTheirAtomEncodings() throws {
        let sink = SparseTestSink()
        _ = try SampleTableSpillTests.record(.init(videoFrames: 20_000, audio: false, omitsMedia: true),
                                             blockSize: MovieWriter.defaultTableBlockSize, into: sink)
        #expect(try #require(sink.scratch).writes > 0, "the sample sizes outgrow a block")
        try Self.expectSampleTablesMatch(in: sink) { _ in ["stts", "ctts", "stss", "stsc", "stsz", "stco"] }
    }

    @Test("every other atom of the movie atom is its atom type's encoding",
          arguments: [Recording(), Recording(fragmented: true)])
    func movieAtomLeavesAreTheirAtomEncodings(_ recording: Recording) throws {
        let file = try Self.record(recording)
        let tree = try AtomTree(source: file)
        let moov = try #require(tree.atoms.last { $0.type == "moov" })
        var compared: Set<FourCC> = []
        func visit(_ node: AtomNode) throws {
            guard node.children.isEmpty else { return try node.children.forEach(visit) }
            guard let encoded = try Self.reencoded(node) else { return }
            expectBytes(try Self.writtenBytes(of: node, in: file), encoded)
            compared.insert(node.type)
        }
        try moov.children.forEach(visit)
        #expect(compared.isSuperset(of: ["mvhd", "tkhd", "elst", "mdhd", "hdlr", "vmhd", "smhd", "dref", "stsd"]), "\(compared)")
    }
}
