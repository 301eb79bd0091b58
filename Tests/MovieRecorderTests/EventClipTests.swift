import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// An event clip written from the pre-roll and the live stream: it starts on the last IDR at
/// or before its start, holds every picture from there through its end in order, and a second
/// trigger extends it.
@Suite struct EventClipTests {
    static let width = 320, height = 240

    /// The test pattern's frames 0..<count through the library's H.264 encoder (30 fps, an IDR
    /// every 30 frames, B-frames), in decode order, times in 600ths on the recording's timeline.
    static func encoded(_ count: Int, dropping dropped: Set<Int> = []) throws -> (samples: [EncodedVideoSample], tracks: RecordingSegment.Tracks) {
        var settings = VideoEncoderSettings()
        settings.preset = "ultrafast"
        settings.keyframeInterval = 30
        settings.maxBFrames = 2
        settings.options = ["scenecut": "0", "bframes": "2", "b-adapt": "0"]
        let format = VideoFormat(width: width, height: height, frameRate: FrameRate(frames: 30))
        let encoder = try makeVideoEncoder(format: format, timescale: 600, settings: settings)
        defer { encoder.close() }
        let renderer = TestPatternRenderer(width: width, height: height, pixelFormat: .i420)
        var samples: [EncodedVideoSample] = []
        for n in 0..<count where !dropped.contains(n) {
            var bytes = [UInt8](repeating: 0, count: PixelFormat.i420.byteCount(width: width, height: height))
            bytes.withUnsafeMutableBytes { renderer.render(frame: UInt64(n), into: $0.baseAddress!) }
            let frame = try VideoFrame(copying: bytes, width: width, height: height, pixelFormat: .i420,
                                       timestamp: UInt64(n) * 33_333_333, sequenceNumber: UInt64(n))
            if let sample = try encoder.encode(frame, presentationTime: Int64(n) * 20, forceKeyframe: false) { samples.append(sample) }
        }
        samples += try encoder.flush()
        let tracks = RecordingSegment.Tracks(video: encoder.trackFormat(timescale: 600, orientation: .up, nominalFrameDuration: 20, color: nil),
                                             audio: nil)
        return (samples, tracks)
    }

    /// The frame numbers the pattern drew into each picture of `path`, in presentation order.
    static func drawnFrameNumbers(_ path: String) throws -> [Int?] {
        // Each decoded picture once (no frame repeated to fill a gap in the times), as stored
        // (not turned by the matrix).
        let decoded = try run("ffmpeg", ["-nostdin", "-v", "error", "-noautorotate", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo",
                                         "-pix_fmt", "gray", "-"])
        #expect(decoded.status == 0 && decoded.error.isEmpty, "ffmpeg: \(decoded.error)")
        let luma = [UInt8](decoded.outputData), size = width * height
        let renderer = TestPatternRenderer(width: width, height: height, pixelFormat: .i420)
        return stride(from: 0, to: luma.count - size + 1, by: size).map { offset in
            readCounter(renderer: renderer) { x, y, lit in (luma[offset + y * width + x] > 125) == lit }
        }
    }

    /// A clip triggered at frame 100 with 1 s of pre-roll and 1 s of post-roll, then extended by
    /// a second trigger at frame 120: it starts at the IDR at frame 60 (the last at or before
    /// frame 70) and holds frames 60 through 150 at least, each once and in order.
    /// With frame 110 dropped at capture (a gap in the presentation times), the clip holds every
    /// other frame.
    @Test(arguments: [[], [110]] as [Set<Int>])
    func aClipHoldsEveryFrameFromTheKeyframeBeforeItsStartThroughItsEnd(dropping dropped: Set<Int>) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (samples, tracks) = try Self.encoded(200, dropping: dropped)
        var preRoll = EncodedPreRoll(duration: .seconds(1), byteLimit: 64 << 20, videoTimescale: 600, audioRate: 48_000)
        // The writing thread has what the encoder gave by the time frame 100 was captured.
        let given = samples.filter { $0.decodeTime < 100 * 20 }
        for sample in given { preRoll.append(sample) }
        let path = dir.file("event.mov")
        let configuration = MovieWriter.Configuration(creationTime: goldenCreationTime)
        let clip = try EventClip(path: path, tracks: tracks, configuration: configuration, orientation: .up, preRoll: preRoll,
                                 requestedStart: 70 * 20, end: 130 * 20, audioFormat: nil)
        #expect(clip.start == 60 * 20)
        var extended = false
        for sample in samples.dropFirst(given.count) {
            if sample.decodeTime >= 120 * 20 && !extended {
                extended = true
                #expect(clip.extend(to: 150 * 20))
            }
            try clip.append(sample)
        }
        #expect(clip.isComplete(audioEnded: false))
        #expect(!clip.extend(to: 200 * 20))
        try clip.finish()
        let numbers = try Self.drawnFrameNumbers(path)
        let first = try #require(numbers.first ?? nil)
        #expect(first == 60, "the clip starts at frame \(first)")
        let expected = (60..<(60 + numbers.count + dropped.count)).filter { !dropped.contains($0) }
        #expect(numbers.count + dropped.count >= 91, "\(numbers.count) pictures")
        #expect(numbers == expected, "frames \(numbers)")
        guard dropped.isEmpty else { return }
        let info = try MovieInfo(path: path)
        let video = try #require(info.videoTrack)
        let table = try #require(video.sampleTable).samples()
        #expect(table.first?.isSync == true)
        #expect(abs(info.durationSeconds - Double(numbers.count) / 30) < 0.001, "\(info.durationSeconds) s, \(numbers.count) pictures, \(table.count) samples, first decode \(table.first?.decodeTime ?? 0), edits \(video.editList)")
    }
}
