import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

extension RealTimeMetadataTestGroup {
    /// Segments by size from a live camera stay within 10% of the size on an idle machine and on
    /// one kept busy by two spinning processes: the switch follows the bytes encoded, not the
    /// bytes on the disk. With LPCM (192 kB a second) 120 kB files are 13 or 14 frames, fewer
    /// than the encoder holds back, so the first is predicted from a trial encode.
    @Suite(.serialized) struct SegmentSizeTests {
        /// Two processes that spin on the CPU until terminated.
        final class Load {
            private var spinners: [Process] = []

            init(busy: Bool) throws {
                guard busy else { return }
                for _ in 0..<2 {
                    let spinner = Process()
                    spinner.executableURL = URL(fileURLWithPath: "/bin/sh")
                    spinner.arguments = ["-c", "while :; do :; done"]
                    try spinner.run()
                    spinners.append(spinner)
                }
            }

            /// SIGKILL: a child inherits the test thread's blocked signals, SIGTERM among them.
            func stop() {
                for spinner in spinners where spinner.isRunning {
                    kill(spinner.processIdentifier, SIGKILL)
                    spinner.waitUntilExit()
                }
            }
        }

        @Test(arguments: [(320, 180, 120_000, AudioEncoderSettings.aac, false), (320, 180, 120_000, .aac, true),
                          (1280, 720, 1_000_000, .aac, false), (1280, 720, 1_000_000, .aac, true),
                          (320, 180, 120_000, .lpcm, false), (320, 180, 120_000, .lpcm, true)])
        func filesStayWithinTenPercentOfTheSize(width: Int, height: Int, size: Int, audio: AudioEncoderSettings, busy: Bool) async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let camera = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30))
            let tone = try ToneSource()
            let movie = MovieFileOutput()
            movie.segmentFileSize = UInt64(size)
            movie.audioSettings = audio
            let session = CaptureSession()
            try await session.configure { config in
                try config.addInput(camera)
                try config.addInput(tone)
                try config.addOutput(movie)
            }
            let finished = Task { [events = movie.events] in
                var results: [RecordingResult] = []
                for await event in events {
                    if case .didFinishSegment(let result) = event { results.append(result) }
                    if case .didFinishRecording = event { break }
                }
                return results
            }
            try await session.startRunning()
            let load = try Load(busy: busy)
            defer { load.stop() }
            try await movie.startRecording(toSegments: try SegmentFileNames(pattern: dir.file("part-%02d.mov")))
            try await Task.sleep(for: .seconds(10))
            _ = await movie.stopRecording()
            load.stop()
            await session.stopRunning()
            let files = await finished.value
            #expect(files.count >= 2, "\(files.count) files switched by size in 10 s")
            let ratios = files.map { Double($0.fileSize) / Double(size) }
            #expect(ratios.allSatisfy { $0 >= 0.9 && $0 <= 1.1 },
                    "\(width)x\(height) \(audio.codec) at \(size) bytes, \(busy ? "busy" : "idle"): sizes \(files.map(\.fileSize)) (\(ratios.map { String(format: "%.3f", $0) }))")
            #expect(files.allSatisfy { $0.isPlayable && $0.droppedFrameCount == 0 || busy }, "\(files)")
        }
    }
}

/// The size estimate against a simulated encoder that holds 17 frames back, as x264's defaults
/// do on two cores, with no clock: where the switches fall follows from the bytes alone.
@Suite struct SegmentSizeEstimatorTests {
    /// A stream of 30 frames a second in 600 ticks: its picture sizes and audio rate.
    struct Stream: CustomStringConvertible, Sendable {
        var name: String
        var audioBytesPerSecond: Double
        /// The recording's first IDR, the IDRs after it, and the other pictures.
        var firstKeyframe: Int
        var keyframe: Int
        var picture: Int
        var limit: Int
        var description: String { name }
    }

    /// The sizes of the files the estimator cuts `stream` into over ten seconds; a file holds
    /// its pictures, 1/30 s of audio a frame and tables of 4400 bytes and 40 a frame.
    static func files(of stream: Stream) -> [Int] {
        var estimator = SegmentSizeEstimator(limit: UInt64(stream.limit), audioBytesPerSecond: stream.audioBytesPerSecond,
                                             timescale: 600, frameDuration: 20, keyframeInterval: 60)
        var files = [4400]
        var framesInFile = [0]
        var inside: [(file: Int, index: Int)] = []
        var nextFileAt = Int.max
        for frame in 0..<300 {
            if frame >= nextFileAt {
                estimator.startSegment(files.count, at: Int64(frame * 20))
                files.append(4400)
                framesInFile.append(0)
                nextFileAt = .max
            }
            let file = files.count - 1
            estimator.frameIn()
            files[file] += Int(stream.audioBytesPerSecond / 30) + 40
            inside.append((file, framesInFile[file]))
            framesInFile[file] += 1
            if inside.count > 17 {
                let out = inside.removeFirst()
                let isKeyframe = out.index % 60 == 0
                let size = isKeyframe ? (out.file == 0 && out.index == 0 ? stream.firstKeyframe : stream.keyframe) : stream.picture
                files[out.file] += size
                estimator.sampleOut(size: size, isKeyframe: isKeyframe, segment: out.file)
            }
            if estimator.needsTrial(newest: Int64(frame * 20), queued: 0) {
                // A third low, as the test pattern's trial comes out.
                estimator.learnFromTrial(keyframe: stream.firstKeyframe * 2 / 3, picture: stream.picture * 2 / 3)
            }
            if let ahead = estimator.framesBeforeSwitch(newest: Int64(frame * 20), queued: 0) { nextFileAt = frame + ahead + 1 }
        }
        return files
    }

    /// Every file but the last within 10% of the size: LPCM files of half a second, shorter
    /// than the encoder's delay (the first before any picture is out); AAC files of a second
    /// at 720p, where a natural keyframe, a fifth of the size, falls at the limit.
    @Test(arguments: [
        Stream(name: "LPCM 320x180", audioBytesPerSecond: 192_000, firstKeyframe: 10_000, keyframe: 12_300, picture: 1_600, limit: 120_000),
        Stream(name: "AAC 320x180", audioBytesPerSecond: 16_000, firstKeyframe: 10_000, keyframe: 12_300, picture: 1_600, limit: 120_000),
        Stream(name: "AAC 1280x720", audioBytesPerSecond: 16_000, firstKeyframe: 153_000, keyframe: 196_000, picture: 9_600, limit: 1_000_000),
    ])
    func filesStayWithinTenPercentOfTheSize(stream: Stream) {
        let files = Self.files(of: stream)
        let ratios = files.dropLast().map { Double($0) / Double(stream.limit) }
        #expect(files.count >= 3, "\(stream): \(files)")
        #expect(ratios.allSatisfy { $0 >= 0.9 && $0 <= 1.1 }, "\(stream): \(files)")
    }
}
