import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// Fragmented writing: a normal finish is an ordinary movie; a file cut off at any moment opens
/// and decodes, and repair turns it into an ordinary movie with what was written.
@Suite(.serialized) struct CrashSafetyTests {
    /// Writes the B-frame fixture and the tone through a fragmented writer; returns the sink, the
    /// bytes as they were before `finish`, and the track IDs.
    func writeFragmented(interval: Duration, finish: Bool) throws -> (final: [UInt8], cut: [UInt8]) {
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264")))
        let wav = try WAVFile(path: fixture("tone-48k-stereo.wav"))
        let pcm = try RandomAccessFile.readAll(fixture("tone-48k-stereo.wav"))[Int(wav.dataOffset)...]
        let sink = InMemoryMovieSink()
        var configuration = MovieWriter.Configuration(creationTime: goldenCreationTime,
                                                      metadata: [.make("MovieRecorder"), .model("crash test")])
        configuration.fragmentInterval = interval
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let video = try writer.addVideoTrack(VideoTrackFormat(h264: stream.configuration.avc!, timescale: 600,
                                                              orientation: try VideoOrientation(rotationAngle: 90, isMirrored: true)))
        let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: wav.format))
        for (i, unit) in stream.accessUnits.enumerated() {
            try writer.appendVideoSample(unit.lengthPrefixed, to: video, decodeTime: Int64(i - stream.reorderDepth) * 20,
                                         presentationTime: Int64(unit.presentationIndex) * 20, isSync: unit.isSync)
            let from = pcm.startIndex + i * 1600 * 4, to = min(pcm.endIndex, from + 1600 * 4)
            if from < to { try writer.appendAudioFrames(Array(pcm[from..<to]), to: audio) }
        }
        let cut = sink.bytes
        if finish { try writer.finish(endTimes: [video: Int64(30 - stream.reorderDepth) * 20]) }
        return (sink.bytes, cut)
    }

    func write(_ bytes: [UInt8], _ name: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aNormalFinishIsAnOrdinaryMovieThatPlaysLikeOneWrittenWithoutFragments() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fragmented = try write(writeFragmented(interval: .milliseconds(300), finish: true).final, "fragmented.mov", in: dir)
        let info = try MovieInfo(source: RandomAccessFile(path: fragmented, mode: .read))
        #expect(info.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"], "fragment headers are hidden inside the mdat")
        #expect(!info.isFragmented)
        #expect(info.metadata.count == 2)
        #expect(info.videoTrack?.orientation == (try VideoOrientation(rotationAngle: 90, isMirrored: true)))

        // The same streams without fragments: the same samples and times.
        var options = StreamMuxer.Options()
        options.creationTime = goldenCreationTime
        options.orientation = try VideoOrientation(rotationAngle: 90, isMirrored: true)
        let plain = dir.file("plain.mov")
        try StreamMuxer.mux(video: AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264"))),
                            audio: (try WAVFile(path: fixture("tone-48k-stereo.wav")), fixture("tone-48k-stereo.wav")),
                            to: plain, options: options)
        let plainInfo = try MovieInfo(source: RandomAccessFile(path: plain, mode: .read))
        for (a, b) in zip(info.tracks, plainInfo.tracks) {
            #expect(a.mediaHeader.duration == b.mediaHeader.duration)
            #expect(a.editList == b.editList)
            let sa = try a.sampleTable!.samples(), sb = try b.sampleTable!.samples()
            #expect(sa.map(\.size) == sb.map(\.size))
            #expect(sa.map(\.decodeTime) == sb.map(\.decodeTime))
            #expect(sa.map(\.presentationTime) == sb.map(\.presentationTime))
            #expect(sa.map(\.isSync) == sb.map(\.isSync))
        }
        let fragmentedFile = try RandomAccessFile(path: fragmented, mode: .read)
        for sample in try info.videoTrack!.sampleTable!.samples() {
            let bytes = try fragmentedFile.read(at: sample.offset, count: Int(sample.size))
            #expect(UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) + 4 <= sample.size,
                    "each sample starts with a NAL length")
        }
        let probed = try ffprobeStreams(fragmented)
        let probedPlain = try ffprobeStreams(plain)
        #expect(probed.map(\.duration) == probedPlain.map(\.duration))
        #expect(probed.map(\.nb_frames) == probedPlain.map(\.nb_frames))
        let decoded = try decodeAllFrames(fragmented)
        #expect(decoded.errors.isEmpty && decoded.videoFrames == 30)
    }

    @Test func aFileCutBeforeFinishOpensDecodesAndRepairs() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cutBytes = try writeFragmented(interval: .milliseconds(300), finish: false).cut
        let cut = try write(cutBytes, "cut.mov", in: dir)
        let tree = try AtomTree(source: InMemoryMovieSource(cutBytes))
        #expect(tree.atoms.prefix(3).map(\.type) == ["ftyp", "wide", "moov"])
        #expect(tree.atoms.filter { $0.type == "moof" }.count >= 3)
        let decoded = try decodeAllFrames(cut)
        #expect(decoded.errors.isEmpty, "ffmpeg: \(decoded.errors)")
        #expect(decoded.videoFrames >= 20, "everything up to the last whole fragment plays")

        let report = try MovieFileRepair.repair(path: cut, outputPath: dir.file("repaired.mov"))
        #expect(report.orientation == (try VideoOrientation(rotationAngle: 90, isMirrored: true)))
        let repaired = try MovieInfo(source: RandomAccessFile(path: dir.file("repaired.mov"), mode: .read))
        #expect(repaired.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"])
        #expect(repaired.videoTrack?.sampleCount == UInt64(decoded.videoFrames))
        #expect(repaired.metadata.count == 2, "metadata survives")
        let depth = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture("testsrc-bframes.264"))).reorderDepth
        #expect(depth > 0)
        #expect(repaired.videoTrack?.editList.first?.mediaTime == Int64(depth * 20), "the B-frame delay is hidden again")
        let video = try #require(try ffprobeStreams(dir.file("repaired.mov")).first { $0.codec_type == "video" })
        #expect(Double(video.start_time ?? "") == 0)
        #expect(abs((Double(video.duration ?? "") ?? 0) - Double(decoded.videoFrames) / 30) < 0.001)
        #expect(try decodeAllFrames(dir.file("repaired.mov")).errors.isEmpty)
        #expect(try RandomAccessFile.readAll(cut) == cutBytes, "repairing into --output leaves the original alone")
    }

    @Test func repairRefusesWhatItCannotRepair() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        func code(_ path: String) -> MovieRepair.RepairError.Code? {
            do { _ = try MovieFileRepair.repair(path: path); return nil } catch let e as MovieRepair.RepairError { return e.code } catch { return nil }
        }
        let finished = dir.file("finished.mov")
        try FileManager.default.copyItem(atPath: fixture("golden/orientation-0.mov"), toPath: finished)
        #expect(code(finished) == .alreadyFinished)
        let classic = try RandomAccessFile.readAll(fixture("golden/orientation-0.mov"))
        let moovStart = Int(try MovieInfo(source: InMemoryMovieSource(classic)).tree.atom("moov")!.offset)
        let noMoov = try write(Array(classic.prefix(moovStart)), "no-moov.mov", in: dir)
        #expect(code(noMoov) == .noMovieHeader)
        let cutBytes = try writeFragmented(interval: .seconds(100), finish: false).cut
        let header = try #require(try AtomTree(source: InMemoryMovieSource(cutBytes)).atom("moov"))
        let early = try write(Array(cutBytes.prefix(Int(header.offset + header.size))), "early.mov", in: dir)
        #expect(code(early) == .noMovieHeader, "killed before its first fragment: nothing to recover")
        #expect(try RandomAccessFile.readAll(finished) == RandomAccessFile.readAll(fixture("golden/orientation-0.mov")))
    }

    /// SIGKILL a recording at random moments (20 for H.264, 8 for HEVC): every file opens and
    /// decodes without error, at most one fragment interval (plus a frame and the pipeline's
    /// queue) is lost, and repair gives an ordinary movie with the same frames and orientation.
    @Test(arguments: [("h264", 20), ("hevc", 8)])
    func killedAtRandomMoments(codec: String, rounds: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        var generator = SystemRandomNumberGenerator()
        var worst = 0.0
        defer { print("killed at random moments, \(codec): worst loss \(String(format: "%.3f", worst)) s in \(rounds) rounds") }
        for round in 0..<rounds {
            let path = dir.file("kill-\(round).mov")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try movrecPath())
            process.arguments = ["record", path, "--video", "testsrc", "--audio", "tone", "--size", "320x240", "--rotation", "270",
                                 "--codec", codec, "--tune", "zerolatency", "--quiet"]
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // Wait for the first frame, then let it run a random while.
            var started: Date?
            var text = ""
            while started == nil, process.isRunning {
                let chunk = err.fileHandleForReading.availableData
                text += String(decoding: chunk, as: UTF8.self)
                if text.contains("recording to") { started = Date() }
            }
            let delay = Double.random(in: 0.2...2.8, using: &generator)
            usleep(UInt32(delay * 1_000_000))
            let elapsed = Date().timeIntervalSince(try #require(started))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            text += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

            let decoded = try decodeAllFramesTimed(path)
            #expect(decoded.errors.isEmpty, "round \(round): ffmpeg: \(decoded.errors)")
            // The span kept, not the frame count: under load movrec may lower the frame rate or drop
            // frames it could not encode, which is not what a kill loses.
            let recorded = decoded.end
            worst = max(worst, elapsed - recorded)
            #expect(elapsed - recorded <= 1.0 + 1.0 / 30 + 0.25,
                    "round \(round): \(elapsed) s ran, \(recorded) s kept (\(decoded.videoFrames) frames); movrec said: \(text)")
            if decoded.videoFrames == 0 { continue }  // killed before the first fragment
            let repaired = dir.file("kill-\(round)-repaired.mov")
            let report = try MovieFileRepair.repair(path: path, outputPath: repaired)
            #expect(report.orientation == (try VideoOrientation(rotationAngle: 270)))
            let info = try MovieInfo(source: RandomAccessFile(path: repaired, mode: .read))
            #expect(info.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"])
            #expect(info.videoTrack?.codec == (codec == "h264" ? "avc1" : "hvc1"))
            #expect(info.videoTrack?.sampleCount == UInt64(decoded.videoFrames), "round \(round)")
            let again = try decodeAllFrames(repaired)
            #expect(again.errors.isEmpty && again.videoFrames == decoded.videoFrames, "round \(round)")
        }
    }
}
