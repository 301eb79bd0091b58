import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The 64-bit paths through the real writer and a real file: `co64` and a 64-bit `mdat` past
/// 4 GiB (made cheaply as a sparse file), and version-1 headers for a duration beyond 2^32
/// ticks (made with a few samples of long duration).
@Suite struct LargeMovieTests {
    let stream: AnnexBStream

    init() throws {
        stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-ipp.264")))
    }

    @Test func offsetsBeyondFourGigabytesUseCo64AndA64BitMediaDataHeader() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("large.mov")
        let file = try RandomAccessFile(path: path, mode: .createNew)
        let writer = MovieWriter(sink: file, configuration: .init(creationTime: goldenCreationTime))
        let track = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600))
        for (index, unit) in stream.accessUnits.enumerated() {
            if index == 15 { try writer.skipMediaBytes(UInt64(1) << 32 + 4096) }  // a hole, not written data
            try writer.appendVideoSample(unit.lengthPrefixed, to: track, decodeTime: Int64(index) * 20,
                                         presentationTime: Int64(index) * 20, isSync: unit.isSync)
        }
        let summary = try writer.finish()
        try file.close()
        #expect(summary.usesLargeOffsets)
        #expect(summary.fileSize > UInt64(1) << 32)

        let info = try MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        #expect(info.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"], "the 64-bit mdat header covers 'wide'")
        let mdat = try #require(info.tree.atom("mdat"))
        #expect(mdat.offset == 20 && mdat.headerSize == 16)
        #expect(mdat.offset + mdat.size == info.tree.atom("moov")!.offset)
        let table = try #require(info.videoTrack?.sampleTable)
        #expect(table.usesLargeOffsets)
        #expect(table.chunkOffsets.contains { $0 > UInt64(UInt32.max) })
        // Every sample's bytes are where the table says.
        let reader = try RandomAccessFile(path: path, mode: .read)
        for (sample, unit) in zip(try table.samples(), stream.accessUnits) {
            #expect(try reader.read(at: sample.offset, count: Int(sample.size)) == unit.lengthPrefixed)
        }
        let decoded = try decodeAllFrames(path)
        #expect(decoded.errors.isEmpty, "ffmpeg: \(decoded.errors)")
        #expect(decoded.videoFrames == 30)
    }

    @Test func durationsBeyond32BitsUseVersion1Headers() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("long.mov")
        let file = try RandomAccessFile(path: path, mode: .createNew)
        let writer = MovieWriter(sink: file, configuration: .init(creationTime: goldenCreationTime))
        let track = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600))
        let step: Int64 = 3_000_000_000  // 57.9 days per frame at 600 ticks/s: three frames pass 2^32 ticks
        for index in 0..<3 {
            let unit = stream.accessUnits[index]
            try writer.appendVideoSample(unit.lengthPrefixed, to: track, decodeTime: Int64(index) * step,
                                         presentationTime: Int64(index) * step, isSync: unit.isSync)
        }
        let summary = try writer.finish(endTimes: [track: 3 * step])
        try file.close()
        #expect(summary.duration == UInt64(3 * step))

        let info = try MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        #expect(info.movieHeader.version == 1 && info.movieHeader.duration == UInt64(3 * step))
        let video = try #require(info.videoTrack)
        #expect(video.header.version == 1 && video.header.duration == UInt64(3 * step))
        #expect(video.mediaHeader.version == 1 && video.mediaHeader.duration == UInt64(3 * step))
        #expect(video.editList.map(\.segmentDuration) == [UInt64(3 * step)])
        let moov = try #require(info.tree.atom("moov"))
        let elst = try #require(moov.child("trak")?.descendant(["edts", "elst"])?.body)
        #expect(elst.first == 1, "elst is version 1")

        let probed = try #require(try ffprobeStreams(path).first)
        #expect(Double(probed.duration ?? "") == Double(3 * step) / 600)
        #expect(probed.nb_frames == "3")
    }
}
