import Foundation
import Testing
import Synchronization
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// Segmented recordings through the real encoders and files: every frame and every audio
/// sample once across the files, each file a movie of its own, retention, and a new segment
/// when the device turns.
@Suite(.serialized) struct SegmentTests {
    /// What a segmented recording reported: the files in order and their results.
    struct Recorded {
        var paths: [String] = []
        var results: [RecordingResult] = []
        var last: RecordingResult?
    }

    /// Records `video` and `audio` into segments named by `names` until the recording ends
    /// by itself (a source ends), or `during` returns and it is stopped.
    func record(video: any VideoSource, audio: (any AudioSource)?, names: SegmentFileNames,
                configure: (MovieFileOutput) -> Void, during: ((MovieFileOutput) async throws -> Void)? = nil) async throws -> Recorded {
        let session = CaptureSession()
        let output = MovieFileOutput()
        configure(output)
        try await session.configure { config in
            try config.addInput(video)
            if let audio { try config.addInput(audio) }
            try config.addOutput(output)
        }
        try await session.startRunning()
        // The events are read from before the recording starts: a burst of segments outruns the
        // stream's buffer otherwise.
        let reader = Task { [events = output.events] in
            var recorded = Recorded()
            for await event in events {
                switch event {
                case .didStartRecording(let path, _), .didStartSegment(let path): recorded.paths.append(path)
                case .didFinishSegment(let result): recorded.results.append(result)
                case .didFinishRecording(let result):
                    recorded.results.append(result)
                    recorded.last = result
                default: break
                }
                if recorded.last != nil { break }
            }
            return recorded
        }
        try await output.startRecording(toSegments: names)
        if let during {
            try await during(output)
            _ = await output.stopRecording()
        }
        let recorded = await reader.value
        await session.stopRunning()
        return recorded
    }

    /// x264 or x265 lossless (4:2:0 in, decoded bit-identical), with or without B-frames.
    func lossless(bFrames: Bool, codec: VideoCodecType = .h264) -> VideoEncoderSettings {
        var settings = VideoEncoderSettings(codec: codec)
        if codec == .h264 {
            settings.rateControl = .constantQuality(crf: 0)
            settings.profile = "high444"
        } else {
            settings.options["lossless"] = "1"
        }
        settings.maxBFrames = bFrames ? 3 : 0
        return settings
    }

    /// The tone `ToneSource()` plays, one channel: what the concatenated audio must be.
    static func toneSamples(_ count: Int) -> [Int16] {
        let step = 2 * Double.pi * 1000 / 48_000, scale = 0.5 * Double(Int16.max)
        var phase = 0.0
        return (0..<count).map { _ in
            let value = Int16((scale * sin(phase)).rounded())
            phase += step
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
            return value
        }
    }

    /// The first channel of a movie's audio, decoded by FFmpeg (edit list applied) and cut to
    /// the track's duration.
    func decodedAudio(_ path: String) throws -> [Int16] {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-af", "pan=mono|c0=c0", "-f", "s16le", "-"])
        #expect(result.status == 0, "ffmpeg: \(result.error)")
        let duration = Double(try #require(try ffprobeStreams(path).first { $0.codec_type == "audio" }?.duration) ?? "") ?? 0
        return Array(SyncChecker.int16Samples(result.outputData).prefix(Int((duration * 48_000).rounded())))
    }

    /// Each case: B-frames, by size (else by duration), the codec, and whether a stand-in for a
    /// hardware encoder that cannot force keyframes encodes (each segment's keyframe a drain and
    /// a reset, its own keyframe interval longer than the recording).
    @Test(arguments: [(false, false, VideoCodecType.h264, false), (true, false, .h264, false), (false, true, .h264, false),
                      (true, true, .h264, false), (true, false, .hevc, false), (false, true, .hevc, false),
                      (false, false, .h264, true)])
    func losslessSegmentsHoldEveryFrameAndSampleOnce(bFrames: Bool, bySize: Bool, codec: VideoCodecType, resetting: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let frames = 150
        let standIn = Mutex<ResettingStandInEncoder?>(nil)
        let recorded = try await record(
            video: TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: frames),
            audio: ToneSource(realTime: false), names: try SegmentFileNames(pattern: dir.file("seg-%02d.mov"))) { output in
            output.encoderSettings = lossless(bFrames: bFrames, codec: codec)
            if resetting {
                output.encoderSettings.keyframeInterval = 1000
                output.useStandInVideoEncoder { format, timescale, settings in
                    let encoder = try ResettingStandInEncoder(format: format, timescale: timescale, settings: settings)
                    standIn.withLock { $0 = encoder }
                    return encoder
                }
            }
            output.audioSettings = .lpcm
            // Fragments every 0.2 s, so the file's size (what is on the disk) grows smoothly.
            output.movieFragmentInterval = .milliseconds(200)
            if bySize { output.segmentFileSize = 200_000 } else { output.segmentDuration = .milliseconds(1300) }
        }
        // By size the switch follows the bytes on the disk, which lag the capture by the queues
        // (seconds, for a file source under load): at least one switch is certain, three likely.
        #expect(recorded.paths.count >= (bySize ? 2 : 4) && recorded.results.count == recorded.paths.count, "\(recorded.paths)")
        #expect(recorded.results.map(\.path) == recorded.paths)
        // A size reached while the encoder's delay keeps the old file filling switches once.
        #expect(recorded.results.dropLast().allSatisfy { $0.frameCount >= 10 }, "\(recorded.results.map(\.frameCount))")
        // Every frame once, in order: each decoded picture is the pattern's next one.
        let renderer = TestPatternRenderer(width: 160, height: 120, pixelFormat: .i420)
        let size = 160 * 120 * 3 / 2
        var expected = [UInt8](repeating: 0, count: size)
        var n = 0
        var audio: [Int16] = []
        for (index, path) in recorded.paths.enumerated() {
            let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
            #expect(decoded.status == 0 && decoded.error.isEmpty, "\(path): \(decoded.error)")
            let pictures = [UInt8](decoded.outputData)
            for offset in stride(from: 0, to: pictures.count, by: size) {
                expected.withUnsafeMutableBytes { renderer.render(frame: UInt64(n), into: $0.baseAddress!) }
                let same = pictures[offset..<offset + size].elementsEqual(expected)
                #expect(same, "\(path): picture \(offset / size) is not frame \(n)")
                n += 1
            }
            let info = try MovieInfo(path: path)
            let samples = try #require(try info.videoTrack?.sampleTable?.samples())
            #expect(samples.first?.isSync == true, "\(path) starts with an IDR")
            if resetting {
                #expect(samples.filter(\.isSync).count == 1, "\(path): keyframes only where the stream was reset")
            }
            #expect(info.videoTrack?.codec == (codec == .h264 ? "avc1" : "hvc1"))
            if !bySize && index < recorded.paths.count - 1 {
                let video = try ffprobeStreams(path).first { $0.codec_type == "video" }
                #expect(abs((Double(video?.duration ?? "") ?? 0) - 1.3) < 1.0 / 30, "\(path) lasts 1.3 s")
            }
            audio += try decodedAudio(path)
        }
        #expect(n == frames, "\(n) frames across the segments")
        if resetting {
            let resets = standIn.withLock { $0?.resets.withLock { $0 } }
            #expect(resets == recorded.paths.count - 1, "\(String(describing: resets)) resets for \(recorded.paths.count) segments")
        }
        // FFmpeg's concat demuxer joins them into the same pictures and the same samples.
        let list = recorded.paths.map { "file '\($0)'" }.joined(separator: "\n")
        try list.write(toFile: dir.file("list.txt"), atomically: true, encoding: .utf8)
        let joined = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-i", dir.file("list.txt"),
                                        "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect(joined.outputData.count == frames * size, "concat gives \(joined.outputData.count / size) pictures")
        let joinedAudio = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-i", dir.file("list.txt"),
                                             "-map", "0:a", "-af", "pan=mono|c0=c0", "-f", "s16le", "-"])
        let joinedIsTone = SyncChecker.int16Samples(joinedAudio.outputData) == Self.toneSamples(frames * 1600)
        #expect(joinedIsTone, "concat gives the tone")
        // Every audio sample once: the concatenated LPCM is the tone itself.
        let tone = Self.toneSamples(frames * 1600)
        #expect(audio.count == tone.count, "\(audio.count) samples across the segments")
        let identical = audio == tone
        #expect(identical, "the first difference at \(zip(audio, tone).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }

    /// AAC segments: each decodes alone (FFmpeg, GStreamer, Chromium for the first) and, cut to
    /// its duration, the concatenation is the tone without a sample lost or repeated (a shift
    /// of one sample at any boundary would drop the SNR below 20 dB from there on).
    @Test func aacSegmentsJoinWithoutALostSample() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let recorded = try await record(
            video: TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 120),
            audio: ToneSource(realTime: false), names: try SegmentFileNames(pattern: dir.file("aac-%d.mov"))) { output in
            output.segmentDuration = .seconds(1)
        }
        #expect(recorded.paths.count == 4 && recorded.last?.error?.code == .sourceEnded)
        var audio: [Int16] = []
        for path in recorded.paths {
            #expect(try decodeAllFrames(path).errors.isEmpty)
            let gst = try run("gst-launch-1.0", ["-q", "filesrc", "location=\(path)", "!", "qtdemux", "name=d", "d.video_0", "!", "queue", "!",
                                                 "h264parse", "!", "avdec_h264", "!", "fakesink", "d.audio_0", "!", "queue", "!",
                                                 "aacparse", "!", "avdec_aac", "!", "fakesink"])
            #expect(gst.status == 0, "GStreamer: \(gst.error)")
            audio += try decodedAudio(path)
        }
        let tone = Self.toneSamples(120 * 1600)
        #expect(audio.count == tone.count)
        var signal = 0.0, noise = 0.0
        for (a, b) in zip(audio, tone) {
            signal += Double(b) * Double(b)
            noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        #expect(10 * log10(signal / max(noise, 1)) > 20, "SNR \(10 * log10(signal / max(noise, 1))) dB")
        #expect(try chromiumAudioDecoded(of: recorded.paths[1], in: dir).bytes > 0)
    }

    @Test func retentionKeepsTheNewestFiles() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let other = dir.file("other-00.mov")
        #expect(FileManager.default.createFile(atPath: other, contents: Data([1, 2, 3])))
        let recorded = try await record(
            video: TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 180),
            audio: ToneSource(realTime: false), names: try SegmentFileNames(pattern: dir.file("loop-%02d.mov"))) { output in
            output.segmentDuration = .milliseconds(200)
            output.maximumSegmentCount = 5
        }
        // 180 frames of 200 ms segments make 30 files. The events keep the newest 64 when their
        // reader falls behind (a loaded machine's burst of 60), so the paths read must be files of
        // this recording in order, ending with the 30th.
        let names = (0..<30).map { dir.file(String(format: "loop-%02d.mov", $0)) }
        #expect(recorded.paths.last == names.last && recorded.paths.allSatisfy(names.contains) && recorded.paths == recorded.paths.sorted(),
                "\(recorded.paths)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("loop-") }.sorted()
        #expect(left == (25..<30).map { "loop-\($0).mov" }, "\(left)")
        #expect(FileManager.default.fileExists(atPath: other), "a file the recording did not create stays")
    }

    @Test func retentionKeepsTheTotalUnderItsLimit() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let limit: UInt64 = 400_000
        let recorded = try await record(
            video: TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 240),
            audio: ToneSource(realTime: false), names: try SegmentFileNames(pattern: dir.file("bytes-%02d.mov"))) { output in
            output.segmentDuration = .milliseconds(500)
            output.maximumTotalSize = limit
        }
        #expect(recorded.paths.count == 16)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("bytes-") }
        let total = try left.reduce(UInt64(0)) { $0 + ((try FileManager.default.attributesOfItem(atPath: dir.file($1))[.size] as? NSNumber)?.uint64Value ?? 0) }
        #expect(total <= limit && left.count >= 2 && left.count < 16, "\(left.count) files, \(total) bytes")
        #expect(left.contains("bytes-15.mov"), "the newest stays")
    }

    /// A turn of the device mid-recording (through the rotation observer and capture service)
    /// gives a new file carrying the new angle; the first lists the change.
    @Test func aTurnStartsANewSegmentWithTheNewMatrix() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let gravity = ManualGravitySource()
        let service = CaptureService()
        let observer = RotationObserver(gravitySource: gravity)
        let camera = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        try await service.session.configure { config in
            try config.addInput(camera)
            try config.addInput(ToneSource())
        }
        let movie = MovieFileOutput()
        movie.startsNewSegmentOnRotationChange = true
        try await service.addOutput(movie)
        await service.observeRotation(of: observer)
        try observer.setCamera(camera, mounting: CameraMounting(position: .back))
        try await service.session.startRunning()
        let events = RecordingEvents(of: movie)
        try await movie.startRecording(toSegments: try SegmentFileNames(pattern: dir.file("turn-%d.mov")))
        // The turn once the first file has its first frame; the stop once the second has its
        // own, the first frame after the turn (the turn reaches the output on the service's task).
        #expect(await events.waitForStart())
        gravity.setRotation(clockwiseDegrees: 90)
        #expect(await eventually { movie.videoRotationAngle == 90 })
        #expect(await events.waitForSegment(dir.file("turn-1.mov")), "no file after the turn")
        let last = try #require(await movie.stopRecording())
        await service.session.stopRunning()
        await service.stopObservingRotation()
        let finished = await events.untilFinished().compactMap { event -> RecordingResult? in
            if case .didFinishSegment(let result) = event { result } else { nil }
        }
        let first = try #require(finished.first)
        #expect(finished.count == 1 && first.path == dir.file("turn-0.mov") && last.path == dir.file("turn-1.mov"))
        #expect(first.orientation.rotationAngle == 0 && last.orientation.rotationAngle == 90)
        #expect(first.rotationChanges.map(\.orientation.rotationAngle) == [90], "the first file lists the turn")
        #expect(first.droppedFrameCount == 0 && last.droppedFrameCount == 0)
        for (result, angle) in [(first, 0), (last, 90)] {
            let corners = try markerCorners(afterAutorotating: result.path)
            let golden = try #require(GoldenCase.orientationCases.first { $0.orientation.rotationAngle == angle && !$0.orientation.isMirrored })
            #expect(corners?.red == golden.markerCorners.red && corners?.green == golden.markerCorners.green, "\(result.path)")
        }
    }

    /// `startRecording(to:)` while recording goes on into the new file, as on macOS.
    @Test func startingAnotherFileWhileRecordingSwitchesToIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let session = CaptureSession()
        let output = MovieFileOutput()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)))
            try config.addInput(ToneSource())
            try config.addOutput(output)
        }
        try await session.startRunning()
        let events = RecordingEvents(of: output)
        try await output.startRecording(to: dir.file("a.mov"))
        // 0.7 s written into each file: the switch once a.mov holds them, the stop once b.mov does.
        #expect(await eventually { output.recordedDuration >= .milliseconds(700) }, "\(output.recordedDuration) recorded")
        let atSwitch = output.recordedDuration
        try await output.startRecording(to: dir.file("b.mov"))
        await #expect(throws: RecordingError.self) { try await output.startRecording(to: dir.file("b.mov")) }
        #expect(await events.waitForSegment(dir.file("b.mov")), "no switch to b.mov")
        #expect(await eventually { output.recordedDuration >= atSwitch + .milliseconds(700) }, "\(output.recordedDuration) recorded")
        let last = try #require(await output.stopRecording())
        await session.stopRunning()
        var kinds: [String] = []
        for event in await events.untilFinished() {
            switch event {
            case .didStartRecording(let path, _): kinds.append("start " + (path as NSString).lastPathComponent)
            case .didStartSegment(let path): kinds.append("segment " + (path as NSString).lastPathComponent)
            case .didFinishSegment(let result): kinds.append("finished " + (result.path as NSString).lastPathComponent)
            case .didFinishRecording(let result): kinds.append("end " + (result.path as NSString).lastPathComponent)
            default: break
            }
        }
        #expect(kinds == ["start a.mov", "segment b.mov", "finished a.mov", "end b.mov"])
        #expect(last.isPlayable && last.error == nil)
        for name in ["a.mov", "b.mov"] {
            let info = try MovieInfo(path: dir.file(name))
            #expect(info.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"], "\(name) is finished")
            #expect(try decodeAllFrames(dir.file(name)).errors.isEmpty)
        }
    }

    /// A segmented recording killed with SIGKILL at any moment: every segment before the last
    /// two is finished; the one being finished at a switch (for up to the encoder's delay) and
    /// the current one are fragmented movies repair finishes. The newest file alone may hold no
    /// fragment yet, or be empty (a kill before its first frame is encoded, as for a single
    /// recording), and repair then says so with its typed error.
    ///
    /// The kill comes `seconds` after movrec says the third file has its first frame, so at
    /// least three files are there however long a sanitized movrec takes to start.
    @Test(arguments: [0.15, 0.45, 0.75])
    func aKillLeavesEarlierSegmentsFinishedAndTheRestRepairable(intoTheThirdFile seconds: Double) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let movrec = try RunningProgram(try movrecPath(), ["record", dir.file("kill-%03d.mov"), "--video", "testsrc", "--audio", "tone",
                                                           "--size", "320x240", "--segment-duration", "1", "--quiet"])
        defer { movrec.killIfRunning() }
        let third = await movrec.waitForError(containing: "movrec: recording to \(dir.file("kill-002.mov"))")
        #expect(third, "movrec did not start a third file: \(movrec.error)")
        try await Task.sleep(for: .seconds(seconds))
        movrec.killIfRunning()
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files.count >= 3, "\(files)")
        for (index, name) in files.enumerated() {
            let isNewest = index == files.count - 1
            // The header goes out with the first sample, so the newest file may still be empty.
            let info = isNewest ? try? MovieInfo(path: dir.file(name)) : try MovieInfo(path: dir.file(name))
            if info?.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"] { continue }
            #expect(index >= files.count - 2, "\(name) of \(files) was not finished")
            if info == nil {
                let size = try FileManager.default.attributesOfItem(atPath: dir.file(name))[.size] as? Int
                #expect(size == 0, "\(name) has no movie atom but \(size ?? -1) bytes")
            }
            let repaired = dir.file("repaired-\(name)")
            if isNewest, !(info?.tree.atoms.contains(where: { $0.type == "moof" }) ?? false) {
                #expect(throws: MovieRepair.RepairError.self, "\(name) holds no fragment") {
                    try MovieFileRepair.repair(path: dir.file(name), outputPath: repaired)
                }
                continue
            }
            let report = try MovieFileRepair.repair(path: dir.file(name), outputPath: repaired)
            #expect(report.fragmentCount >= 1, "\(name)")
            #expect(try decodeAllFrames(repaired).errors.isEmpty)
        }
    }

    @Test func badNamePatternsAreRefused() throws {
        for pattern in ["clip.mov", "clip-%d-%d.mov", "clip-%s.mov", "clip-%%.mov"] {
            #expect(throws: RecordingError.self, "\(pattern)") { try SegmentFileNames(pattern: pattern) }
        }
        #expect(throws: RecordingError.self) { try SegmentFileNames(pattern: "clip.mov", usesDateFields: true) }
        #expect(try SegmentFileNames(pattern: "a-%03d-100%%.mov").path(index: 7, unixSeconds: 0) == "a-007-100%.mov")
        #expect(try SegmentFileNames(pattern: "%Y.mov", usesDateFields: true).path(index: 0, unixSeconds: 1_767_225_600).hasSuffix(".mov"))
    }
}
