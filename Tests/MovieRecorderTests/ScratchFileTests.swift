import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The scratch file a movie file gives its writer for the sample tables of a long recording:
/// unnamed, beside the movie, and invisible in the movie's directory.
@Suite struct ScratchFileTests {
    @Test func aScratchFileHasNoNameAndReadsBackWhatWasWritten() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let scratch = try RandomAccessFile.scratchFile(beside: dir.file("movie.mov"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.isEmpty)
        #expect(!scratch.isLinked)
        let data = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try data.withUnsafeBytes { try scratch.write($0, at: 4096) }
        var back = [UInt8](repeating: 0, count: data.count)
        #expect(try back.withUnsafeMutableBytes { try scratch.read(at: 4096, into: $0) } == data.count)
        #expect(back == data)
        try scratch.close()
    }

    @Test func aRecordingWhoseTablesGoToAScratchFileWritesTheSameMovie() throws {
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-ipp.264")))
        func record(into sink: any MovieByteSink, tableBlockSize: Int, duringRecording: () throws -> Void = {}) throws {
            var configuration = MovieWriter.Configuration(creationTime: goldenCreationTime, metadata: [.software("MovieRecorder")])
            configuration.fragmentInterval = .seconds(1)
            let writer = MovieWriter(sink: sink, configuration: configuration, tableBlockSize: tableBlockSize)
            let video = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600,
                                                                  orientation: try VideoOrientation(rotationAngle: 90)))
            let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48_000, channelCount: 2)))
            for round in 0..<4 {
                for (index, unit) in stream.accessUnits.enumerated() {
                    let n = round * stream.accessUnits.count + index
                    try writer.appendVideoSample(unit.lengthPrefixed, to: video, decodeTime: Int64(n) * 20,
                                                 presentationTime: Int64(n) * 20, isSync: unit.isSync)
                    try writer.appendAudioFrames([UInt8](repeating: UInt8(n & 0xFF), count: 1600 * 4), to: audio)
                }
            }
            try duringRecording()
            let frames = Int64(4 * stream.accessUnits.count)
            try writer.finish(endTimes: [video: frames * 20, audio: frames * 1600 - 500])
        }
        let expected = InMemoryMovieSink()
        try record(into: expected, tableBlockSize: MovieWriter.defaultTableBlockSize)

        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("spilled.mov")
        let file = try RandomAccessFile(path: path, mode: .createNew)
        try record(into: file, tableBlockSize: 8) {
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(names == ["spilled.mov"], "the scratch file never shows up")
            // But the writer holds it open: a deleted file in the movie's directory.
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
            }
            #expect(open.contains { $0.hasPrefix(dir.path + "/.movrec-scratch-") && $0.hasSuffix("(deleted)") }, "\(open)")
        }
        try file.close()
        #expect(try RandomAccessFile.readAll(path) == expected.bytes)
        let decoded = try decodeAllFrames(path)
        #expect(decoded.errors.isEmpty, "ffmpeg: \(decoded.errors)")
        #expect(decoded.videoFrames == 4 * stream.accessUnits.count)
    }
}
