import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The muxer hands the writer its inputs' memory instead of copies, and the writer gathers it
/// into `pwritev`: the bytes that reach the file are the same as when every sample is copied.
@Suite struct StreamMuxerTests {
    /// The fixtures through a writer fed copies, with the muxer's timing and call pattern.
    func copiedMovie(fragmentInterval: Duration?) throws -> [UInt8] {
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264")))
        let wav = try WAVFile(path: fixture("tone-48k-stereo.wav"))
        let file = try RandomAccessFile.readAll(fixture("tone-48k-stereo.wav"))
        let sink = InMemoryMovieSink()
        var configuration = MovieWriter.Configuration(creationTime: goldenCreationTime)
        configuration.fragmentInterval = fragmentInterval
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600, nominalFrameDuration: 20))
        let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: wav.format))
        let frames = stream.accessUnits.count
        let audioFrames = min(wav.frameCount, UInt64(Double(frames) / 30 * 48000))
        var done: UInt64 = 0
        for (index, unit) in stream.accessUnits.enumerated() {
            try writer.appendVideoSample(unit.lengthPrefixed, to: video, decodeTime: Int64(index - stream.reorderDepth) * 20,
                                         presentationTime: Int64(unit.presentationIndex) * 20, isSync: unit.isSync)
            let due = min(audioFrames, UInt64(Double(index + 1) / Double(frames) * Double(audioFrames)))
            if due > done {
                let from = Int(wav.dataOffset + done * 4), to = Int(wav.dataOffset + due * 4)
                try writer.appendAudioFrames(Array(file[from..<to]), to: audio)
                done = due
            }
        }
        try writer.finish(endTimes: [video: Int64(frames - stream.reorderDepth) * 20])
        return sink.bytes
    }

    func options(fragmentInterval: Duration?) -> StreamMuxer.Options {
        var options = StreamMuxer.Options()
        options.creationTime = goldenCreationTime
        options.fragmentInterval = fragmentInterval
        return options
    }

    @Test("borrowed samples and gathered writes give the bytes copies give, with and without fragments",
          arguments: [nil, Duration.milliseconds(300), .seconds(1)])
    func borrowedSamplesWriteTheSameBytes(fragmentInterval: Duration?) throws {
        let expected = try copiedMovie(fragmentInterval: fragmentInterval)
        let audio = (wav: try WAVFile(path: fixture("tone-48k-stereo.wav")), path: fixture("tone-48k-stereo.wav"))

        // In memory: the default gathered write, one buffer after another.
        let memory = InMemoryMovieSink()
        let fromArray = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264")))
        _ = try StreamMuxer.mux(video: fromArray, audio: audio, into: memory, options: options(fragmentInterval: fragmentInterval))
        #expect(memory.bytes == expected)

        // To a file with pwritev, from a mapped stream.
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let mapped = try AnnexBStream(contentsOfFile: fixture("testsrc-bframes.264"))
        try StreamMuxer.mux(video: mapped, audio: audio, to: dir.file("out.mov"), options: options(fragmentInterval: fragmentInterval))
        #expect(try RandomAccessFile.readAll(dir.file("out.mov")) == expected)
    }

    /// A sink that keeps the bytes and counts the calls.
    final class CountingSink: MovieByteSink {
        let memory = InMemoryMovieSink()
        var writes = 0, gatheredWrites = 0
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
            writes += 1
            try memory.write(bytes, at: offset)
        }
        func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
            gatheredWrites += 1
            var position = offset
            for buffer in buffers {
                try memory.write(buffer, at: position)
                position += UInt64(buffer.count)
            }
        }
        func synchronize() throws {}
        func truncate(to size: UInt64) throws { try memory.truncate(to: size) }
    }

    @Test("the muxer's chunks reach the sink in one gathered write, not one write per chunk")
    func chunksAreCoalesced() throws {
        let sink = CountingSink()
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264")))
        let audio = (wav: try WAVFile(path: fixture("tone-48k-stereo.wav")), path: fixture("tone-48k-stereo.wav"))
        _ = try StreamMuxer.mux(video: stream, audio: audio, into: sink, options: options(fragmentInterval: nil))
        #expect(sink.memory.bytes == (try copiedMovie(fragmentInterval: nil)))
        let info = try MovieInfo(source: InMemoryMovieSource(sink.memory.bytes))
        #expect(info.tracks.allSatisfy { ($0.sampleTable?.chunkOffsets.count ?? 0) >= 2 }, "several chunks per track")
        #expect(sink.gatheredWrites == 1, "all the media in one write")
        #expect(sink.writes == 3, "the file header, the movie atom and the mdat size")
    }

    @Test("collected media goes out early when the writer is asked to (it would wait for input), the bytes unchanged")
    func collectedMediaWrittenEarly() throws {
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-ipp.264")))
        func movie(writingEarlyFrom minimum: Int) throws -> CountingSink {
            let sink = CountingSink()
            var configuration = MovieWriter.Configuration(creationTime: goldenCreationTime)
            configuration.coalescesMediaWrites = true
            let writer = MovieWriter(sink: sink, configuration: configuration)
            let track = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 30))
            for (index, unit) in stream.accessUnits.enumerated() {
                let sample = unit.nalUnits.flatMap { nal in withUnsafeBytes(of: UInt32(nal.count).bigEndian, Array.init) + nal }
                try writer.appendVideoSample(sample, to: track, decodeTime: Int64(index), presentationTime: Int64(index),
                                             isSync: unit.isSync)
                try writer.writeCollectedMedia(ifAtLeast: minimum)
            }
            _ = try writer.finish()
            return sink
        }
        let whole = try movie(writingEarlyFrom: .max), early = try movie(writingEarlyFrom: 1), never = try movie(writingEarlyFrom: 1 << 30)
        func calls(_ sink: CountingSink) -> Int { sink.writes + sink.gatheredWrites }
        #expect(whole.gatheredWrites == 1, "without early writes all the media goes in one write")
        #expect(calls(never) == calls(whole), "less collected than asked for: nothing written early")
        #expect(calls(early) > calls(whole), "each full chunk written when asked: \(calls(early)) calls against \(calls(whole))")
        #expect(early.memory.bytes == whole.memory.bytes)
        #expect(never.memory.bytes == whole.memory.bytes)
    }

    @Test("with fragments, each fragment's header joins its media in the muxer's gathered writes")
    func fragmentsAreCoalesced() throws {
        let sink = CountingSink()
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264")))
        let audio = (wav: try WAVFile(path: fixture("tone-48k-stereo.wav")), path: fixture("tone-48k-stereo.wav"))
        _ = try StreamMuxer.mux(video: stream, audio: audio, into: sink, options: options(fragmentInterval: .milliseconds(300)))
        #expect(sink.memory.bytes == (try copiedMovie(fragmentInterval: .milliseconds(300))))
        // The finished movie hides its fragments inside one mdat; their headers are still there.
        let bytes = sink.memory.bytes, moof = Array("moof".utf8)
        #expect((4..<bytes.count - 4).filter { Array(bytes[$0..<$0 + 4]) == moof }.count >= 3)
        #expect(sink.gatheredWrites == 1, "every fragment, header and media, in one write")
        #expect(sink.writes == 3, "the file header, the movie atom and the mdat header that hides the fragments")
    }

    @Test("a gathered write of more buffers than one pwritev takes, some empty, lands in order")
    func gatheredWriteBeyondIOVMax() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let pieces = (0..<3000).map { i in [UInt8](repeating: UInt8(i % 251), count: i % 7) }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: pieces.reduce(0) { $0 + $1.count }, alignment: 1)
        defer { storage.deallocate() }
        var buffers: [UnsafeRawBufferPointer] = []
        var offset = 0
        for piece in pieces {
            let slice = UnsafeMutableRawBufferPointer(rebasing: storage[offset..<offset + piece.count])
            slice.copyBytes(from: piece)
            buffers.append(UnsafeRawBufferPointer(slice))
            offset += piece.count
        }
        let file = try RandomAccessFile(path: dir.file("gathered"), mode: .createNew)
        try file.write(gathering: buffers, at: 10)
        try file.close()
        #expect(try RandomAccessFile.readAll(dir.file("gathered")) == [UInt8](repeating: 0, count: 10) + pieces.flatMap { $0 })
    }

    @Test("writes longer than one call takes are split and land in order, buffers cut anywhere")
    func writesBeyondTheCallLimit() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let limit = RandomAccessFile.maximumWriteSize
        // Buffers that end before, at, and past each call's limit, and one several limits long.
        let sizes = [limit - 3, 5, 1, limit, 3 * limit + 17, 0, limit / 2, limit + 1, 2]
        var generator = UInt32(7)
        let bytes = (0..<sizes.reduce(0, +)).map { _ in
            generator = generator &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: generator >> 24)
        }
        try bytes.withUnsafeBytes { all in
            var buffers: [UnsafeRawBufferPointer] = [], start = 0
            for size in sizes {
                buffers.append(UnsafeRawBufferPointer(rebasing: all[start..<start + size]))
                start += size
            }
            let gathered = try RandomAccessFile(path: dir.file("gathered"), mode: .createNew)
            try gathered.write(gathering: buffers, at: 3)
            try gathered.close()
            let single = try RandomAccessFile(path: dir.file("single"), mode: .createNew)
            try single.write(all, at: 3)
            try single.close()
        }
        #expect(try RandomAccessFile.readAll(dir.file("gathered")) == [0, 0, 0] + bytes)
        #expect(try RandomAccessFile.readAll(dir.file("single")) == [0, 0, 0] + bytes)
    }

    @Test("the muxer reserves the media's blocks, none past the end of the finished movie")
    func reservedBlocksStayWithinTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let reserved = try RandomAccessFile(path: dir.file("reserved"), mode: .createNew)
        try reserved.reserve(1 << 20)
        #expect(reserved.size == 0, "reserving does not change the size")
        try reserved.close()

        let audio = (wav: try WAVFile(path: fixture("tone-48k-stereo.wav")), path: fixture("tone-48k-stereo.wav"))
        for interval in [nil, Duration.milliseconds(300)] {
            let path = dir.file("out-\(interval == nil ? "plain" : "fragmented").mov")
            try StreamMuxer.mux(video: AnnexBStream(contentsOfFile: fixture("testsrc-bframes.264")), audio: audio, to: path,
                                options: options(fragmentInterval: interval))
            var info = stat()
            #expect(stat(path, &info) == 0)
            let allocated = Int(info.st_blocks) * 512
            let limit = (Int(info.st_size) + 4095) / 4096 * 4096 + 65536
            #expect(allocated <= limit, "no blocks left reserved past the end")
        }
    }

    @Test("a mapped file reads as the file; an empty one as no bytes")
    func mappedContents() throws {
        let path = fixture("tone-44k1-mono.wav")
        let file = try RandomAccessFile(path: path, mode: .read)
        let mapped = try file.mappedContents()
        try file.close()
        #expect(mapped[0..<mapped.count] == (try RandomAccessFile.readAll(path)), "the mapping outlives the descriptor")

        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let empty = try RandomAccessFile(path: dir.file("empty"), mode: .createNew)
        #expect(try empty.mappedContents().count == 0)
        try empty.close()
    }
}
