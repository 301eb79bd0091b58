import Testing
@_spi(Benchmarks) @testable import MovieContainer

// The sample tables of a long recording move to scratch storage in blocks, and the movie atom
// is streamed back from them. A writer whose blocks hold one entry (every entry goes through
// scratch storage, and a cut at the end reads blocks back) must write the same bytes as one
// whose tables never leave memory.

/// A sink that keeps only the pages written (so a movie can pass 4 GiB in a test), offers
/// scratch storage when asked, and fails on request.
final class SparseTestSink: MovieByteSink, MovieByteSource {
    static let pageSize = 4096
    private(set) var pages: [UInt64: [UInt8]] = [:]
    private(set) var size: UInt64 = 0
    var offersScratch = true
    var failsCreatingScratch = false
    private(set) var scratch: FaultyScratchStorage?

    struct Fault: Error, CustomStringConvertible {
        var description: String
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let position = offset + UInt64(done)
            let page = position / UInt64(Self.pageSize), start = Int(position % UInt64(Self.pageSize))
            let n = min(bytes.count - done, Self.pageSize - start)
            var data = pages.removeValue(forKey: page) ?? [UInt8](repeating: 0, count: Self.pageSize)
            data.withUnsafeMutableBytes {
                UnsafeMutableRawBufferPointer(rebasing: $0[start..<start + n]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: bytes[done..<done + n]))
            }
            pages[page] = data
            done += n
        }
        size = max(size, offset + UInt64(bytes.count))
    }

    func synchronize() throws {}

    func truncate(to size: UInt64) throws {
        pages = pages.filter { $0.key * UInt64(Self.pageSize) < size }
        self.size = size
    }

    func makeScratchStorage() throws -> (any MovieScratchStorage)? {
        if failsCreatingScratch { throw Fault(description: "no room for a scratch file") }
        guard offersScratch else { return nil }
        let storage = FaultyScratchStorage()
        scratch = storage
        return storage
    }

    /// The bytes in `range`, zeros where nothing was written.
    func bytes(_ range: Range<UInt64>) -> [UInt8] {
        range.map { offset in pages[offset / UInt64(Self.pageSize)]?[Int(offset % UInt64(Self.pageSize))] ?? 0 }
    }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        bytes(min(offset, size)..<min(offset + UInt64(count), size))
    }
}

/// Scratch storage in memory that counts its writes and can be made to fail.
final class FaultyScratchStorage: MovieScratchStorage {
    private let storage = InMemoryScratchStorage()
    private(set) var writes = 0
    var failsWrites = false
    var failsReads = false
    private(set) var isClosed = false

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        if failsWrites { throw SparseTestSink.Fault(description: "No space left on device") }
        writes += 1
        try storage.write(bytes, at: offset)
    }

    func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if failsReads { throw SparseTestSink.Fault(description: "Input/output error") }
        return try storage.read(at: offset, into: buffer)
    }

    func close() throws { isClosed = true }
}

@Suite("Sample tables in scratch storage")
struct SampleTableSpillTests {
    /// What a test recording holds.
    struct Recording: Sendable, CustomStringConvertible {
        var fragmented = false
        var videoFrames = 240
        var audio = true
        /// Leaves this many bytes unwritten before the frame at `skipAt` (classic layout only).
        var skip: (at: Int, bytes: UInt64)?
        /// Audio frames cut from the end by the audio end time.
        var audioCut = 30_000
        /// Whether sample bytes are left out (``MovieWriter/omitsMediaData``).
        var omitsMedia = false

        var description: String {
            "\(fragmented ? "fragmented" : "classic"), \(videoFrames) frames\(audio ? " + audio" : "")"
                + (skip.map { ", \($0.bytes) bytes skipped at frame \($0.at)" } ?? "") + ", audio cut by \(audioCut)"
        }
    }

    static let recordings: [Recording] = [
        Recording(),
        Recording(fragmented: true),
        Recording(audioCut: 0),
        Recording(fragmented: true, audioCut: 200_000),
        Recording(skip: (at: 120, bytes: 5 << 30), omitsMedia: true),  // co64
        Recording(skip: (at: 200, bytes: 5 << 30), audioCut: 60_000, omitsMedia: true),  // audio cut back below 4 GiB: stco
        Recording(videoFrames: 20_000, audio: false, omitsMedia: true),  // stsz of 80 kB: past a default block
    ]

    /// Records `recording` through a writer whose tables keep `blockSize` bytes in memory.
    static func record(_ recording: Recording, blockSize: Int, into sink: SparseTestSink) throws -> MovieWriter.Summary {
        var configuration = MovieWriter.Configuration(creationTime: creation, metadata: [.software("spill test")])
        configuration.fragmentInterval = recording.fragmented ? .seconds(1) : nil
        let writer = MovieWriter(sink: sink, configuration: configuration, tableBlockSize: blockSize)
        writer.omitsMediaData = recording.omitsMedia
        let video = try writer.addVideoTrack(VideoTrackFormat(
            h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 600))
        let audio = recording.audio ? try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48_000, channelCount: 2))) : nil
        let sample = [UInt8](repeating: 0x5A, count: 2048)
        var decodeTime: Int64 = 0
        var audioFrames = 0
        for n in 0..<recording.videoFrames {
            if let skip = recording.skip, skip.at == n { try writer.skipMediaBytes(skip.bytes) }
            // Durations and composition offsets that change often (many stts and ctts runs), a
            // keyframe every 7 frames, sizes that vary.
            let size = 1 + (n &* 7919) % sample.count
            try sample.withUnsafeBytes {
                try writer.appendVideoSample(UnsafeRawBufferPointer(rebasing: $0[0..<size]), to: video, decodeTime: decodeTime,
                                             presentationTime: decodeTime + [0, 40, 20][n % 3], isSync: n % 7 == 0)
            }
            decodeTime += [20, 20, 21, 19, 20][n % 5]
            if let audio {
                // Buffers of varying length: chunks and fragments of varying sample counts.
                let frames = 400 + (n &* 53) % 1200
                try writer.appendAudioFrames([UInt8](repeating: UInt8(n & 0xFF), count: frames * 4), to: audio)
                audioFrames += frames
            }
        }
        var endTimes = [video: decodeTime]
        if let audio { endTimes[audio] = Int64(max(0, audioFrames - recording.audioCut)) }
        return try writer.finish(endTimes: endTimes)
    }

    @Test("one-entry blocks in scratch storage write the same bytes as tables in memory",
          arguments: recordings, [1, 12, 100, 4096])
    func spilledTablesWriteTheSameMovie(_ recording: Recording, blockSize: Int) throws {
        let inMemory = SparseTestSink()
        let expected = try Self.record(recording, blockSize: 1 << 30, into: inMemory)
        #expect(inMemory.scratch == nil, "a table that fits its block never asks for scratch storage")
        let spilled = SparseTestSink()
        let summary = try Self.record(recording, blockSize: blockSize, into: spilled)
        if blockSize <= 100 || recording.videoFrames > 1000 {
            let scratch = try #require(spilled.scratch)
            #expect(scratch.writes > 0)
            #expect(scratch.isClosed, "scratch storage is released once the movie atom is written")
        }
        #expect(summary.fileSize == expected.fileSize)
        #expect(summary.sampleCounts == expected.sampleCounts)
        #expect(summary.usesLargeOffsets == expected.usesLargeOffsets)
        #expect(spilled.size == inMemory.size)
        #expect(spilled.pages == inMemory.pages, "the files differ")
        if recording.skip != nil {
            let tracks = try MovieInfo(source: spilled).tracks
            #expect(tracks[0].sampleTable?.usesLargeOffsets == true)
            // At frame 200 the skip comes after all but the audio that is cut: back to stco.
            #expect(tracks[1].sampleTable?.usesLargeOffsets == (recording.skip?.at == 120))
        }
    }

    @Test("a sink without scratch storage keeps the blocks in memory, with the same bytes")
    func blocksStayInMemoryWithoutScratchStorage() throws {
        let expected = SparseTestSink()
        _ = try Self.record(Recording(), blockSize: 1 << 30, into: expected)
        let sink = SparseTestSink()
        sink.offersScratch = false
        _ = try Self.record(Recording(), blockSize: 16, into: sink)
        #expect(sink.pages == expected.pages)
    }

    @Test("cutting audio at the end gives the tables of the frames kept, whatever block it falls in",
          arguments: [1, 1 << 20])
    func audioCutMatchesTheTablesOfTheFramesKept(blockSize: Int) throws {
        func record(cut: UInt64?) throws -> SampleTable {
            let sink = SparseTestSink()
            let writer = MovieWriter(sink: sink, configuration: .init(creationTime: creation), tableBlockSize: blockSize)
            let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 8000, channelCount: 1)))
            for n in 0..<200 {
                // Chunks of 4000+ frames whose counts repeat in runs, then change.
                try writer.appendAudioFrames([UInt8](repeating: 1, count: 2 * (300 + (n / 9 % 3) * 250)), to: audio)
            }
            try writer.finish(endTimes: cut.map { [audio: Int64($0)] } ?? [:])
            let info = try MovieInfo(source: InMemoryMovieSource(sink.bytes(0..<sink.size)))
            return try #require(info.tracks.first?.sampleTable)
        }
        let whole = try record(cut: nil)
        // The frames of each chunk, from the uncut tables.
        let entries = whole.sampleToChunk.entries
        var perChunk: [UInt32] = []
        for (i, entry) in entries.enumerated() {
            let next = i + 1 < entries.count ? Int(entries[i + 1].firstChunk) : whole.chunkOffsets.count + 1
            perChunk += repeatElement(entry.samplesPerChunk, count: next - Int(entry.firstChunk))
        }
        #expect(entries.count > 4, "the recording needs several runs")
        let total = perChunk.reduce(UInt64(0)) { $0 + UInt64($1) }
        let boundary = UInt64(perChunk.prefix(perChunk.count / 2).reduce(0) { $0 + UInt64($1) })
        for cut in [0, 1, boundary - 1, boundary, boundary + 1, total / 3, total - UInt64(perChunk.last!), total - 1] {
            // The model: whole chunks up to the cut, the one it falls in shortened, runs rebuilt.
            var kept: [UInt32] = []
            var left = cut
            for count in perChunk where left > 0 {
                kept.append(UInt32(min(UInt64(count), left)))
                left -= UInt64(kept.last!)
            }
            var runs: [SampleToChunkAtom.Entry] = []
            for (i, count) in kept.enumerated() where runs.last?.samplesPerChunk != count {
                runs.append(.init(firstChunk: UInt32(i + 1), samplesPerChunk: count))
            }
            let table = try record(cut: cut)
            #expect(table.sampleToChunk.entries == runs, "cut at \(cut)")
            #expect(table.chunkOffsets == Array(whole.chunkOffsets.prefix(kept.count)), "cut at \(cut)")
            #expect(UInt64(table.sizes.sampleCount) == cut, "cut at \(cut)")
            #expect(table.timeToSample.entries.map(\.count).reduce(0, +) == UInt32(cut), "cut at \(cut)")
        }
    }

    @Test("a full disk under scratch storage is a writeFailed error naming the table, and the writer stops")
    func scratchWriteFailureIsAnError() throws {
        let sink = SparseTestSink()
        let writer = MovieWriter(sink: sink, configuration: .init(creationTime: creation), tableBlockSize: 64)
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS])))
        // 16 sizes fill the first 64-byte block, which goes to scratch storage; the next fails.
        for n in 0..<16 {
            try writer.appendVideoSample([1, 2, 3], to: video, decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20, isSync: n == 0)
        }
        try #require(sink.scratch).failsWrites = true
        var error: MovieWriterError?
        for n in 16..<100 where error == nil {
            do {
                try writer.appendVideoSample([1, 2, 3], to: video, decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20, isSync: false)
            } catch let thrown as MovieWriterError {
                error = thrown
            }
        }
        let failure = try #require(error)
        #expect(failure.message.contains("track 1 sample sizes ('stsz')"), "\(failure)")
        #expect(failure.code == .writeFailed)
        #expect(failure.message.contains("track 1") && failure.message.contains("scratch storage"), "\(failure)")
        #expect("\(failure)".contains("No space left on device"))
        let next = #expect(throws: MovieWriterError.self) {
            try writer.appendVideoSample([1], to: video, decodeTime: 100_000, presentationTime: 100_000, isSync: false)
        }
        #expect(next?.code == .invalidState)
    }

    @Test("scratch storage that cannot be created is a writeFailed error")
    func scratchCreationFailureIsAnError() throws {
        let sink = SparseTestSink()
        sink.failsCreatingScratch = true
        let writer = MovieWriter(sink: sink, configuration: .init(creationTime: creation), tableBlockSize: 8)
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS])))
        let error = #expect(throws: MovieWriterError.self) {
            for n in 0..<10 {
                try writer.appendVideoSample([1, 2, 3], to: video, decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20, isSync: true)
            }
        }
        #expect(error?.code == .writeFailed)
        #expect(error?.message.contains("creating scratch storage") == true, "\(String(describing: error))")
        #expect(error.map { "\($0)" }?.contains("no room for a scratch file") == true)
    }

    @Test("entries that cannot be read back fail the finish with an error naming the table")
    func scratchReadFailureFailsTheFinish() throws {
        let sink = SparseTestSink()
        let writer = MovieWriter(sink: sink, configuration: .init(creationTime: creation), tableBlockSize: 8)
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS])))
        for n in 0..<10 {
            try writer.appendVideoSample([1, 2, 3], to: video, decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20, isSync: n == 0)
        }
        try #require(sink.scratch).failsReads = true
        let error = #expect(throws: MovieWriterError.self) { try writer.finish() }
        #expect(error?.code == .writeFailed)
        #expect(error?.message.contains("reading") == true && error?.message.contains("back from scratch storage") == true,
                "\(String(describing: error))")
        #expect(error?.message.contains("track 1") == true)
    }

    @Test("in-memory scratch storage reads back what was written across its pages")
    func inMemoryScratchStorageRoundTrips() throws {
        let storage = InMemoryScratchStorage()
        let data = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try data.withUnsafeBytes { try storage.write(UnsafeRawBufferPointer(rebasing: $0[1000...]), at: 70_000) }
        #expect(storage.size == 70_000 + 199_000)
        var back = [UInt8](repeating: 0, count: 150_000)
        let count = try back.withUnsafeMutableBytes { try storage.read(at: 70_000, into: $0) }
        #expect(count == back.count)
        #expect(back == Array(data[1000..<151_000]))
        let past = try back.withUnsafeMutableBytes { try storage.read(at: 200_000, into: $0) }
        #expect(past == 69_000, "a read past the end stops at it")
    }
}

@Suite("ByteWriter external spans")
struct ByteWriterExternalSpanTests {
    @Test("sizes and patches count a reserved span; bytes leave it out")
    func spansCountInSizesAndPatches() throws {
        var w = ByteWriter()
        try w.writeAtom("moov") { w in
            w.write(UInt32(7))
            try w.writeAtom("stsz") { w in w.reserveExternal(10, source: 3) }
            w.reserveExternal(0, source: 4)  // nothing reserved
            // A child written the way Metadata writes its items: size patched by `count`.
            let start = w.count
            w.write(UInt32(0))
            w.write("free" as FourCC)
            w.write(UInt8(9))
            w.patch(UInt32(w.count - start), at: start)
        }
        #expect(w.count == 8 + 4 + 8 + 10 + 9)
        #expect(w.externalSpans == [.init(offset: 20, insertionIndex: 20, count: 10, source: 3)])
        #expect(w.bytes == [0, 0, 0, 39] + Array("moov".utf8) + [0, 0, 0, 7]
            + [0, 0, 0, 18] + Array("stsz".utf8)
            + [0, 0, 0, 9] + Array("free".utf8) + [9])
    }
}

@Suite("Fragments past 2 GiB")
struct LargeFragmentTests {
    /// Records `frames` frames of video, 1 GiB each, and optionally a little audio after each frame,
    /// into one fragment after the first (the first goes out with the first frame). Sample bytes
    /// are left out, so the frames' memory is never read.
    func record(frames: Int, audio: Bool) throws -> MovieWriter.Summary {
        var configuration = MovieWriter.Configuration(creationTime: creation)
        configuration.fragmentInterval = .seconds(3600)
        let writer = MovieWriter(sink: SparseTestSink(), configuration: configuration)
        writer.omitsMediaData = true
        let video = try writer.addVideoTrack(VideoTrackFormat(
            h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 600))
        let sound = audio ? try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48_000, channelCount: 2))) : nil
        let frame = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: 0x1000), count: 1 << 30)
        for n in 0..<frames {
            try writer.appendVideoSample(frame, to: video, decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20, isSync: true)
            if let sound { try writer.appendAudioFrames([UInt8](repeating: 0, count: 1600 * 4), to: sound) }
        }
        return try writer.finish()
    }

    @Test("a video-only fragment of 2 GiB is written: its one run starts right after the moof")
    func videoOnly() throws {
        let summary = try record(frames: 3, audio: false)
        #expect(summary.fileSize > 3 << 30)
    }

    @Test("a run that would start 2 GiB or more past its moof is refused with an error, not a crash")
    func audioAfterTwoGiBOfVideo() throws {
        let error = #expect(throws: MovieWriterError.self) { try record(frames: 3, audio: true) }
        #expect(error.map { "\($0)".contains("do not fit one fragment") } == true)
    }
}
