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

    /// 48 kHz stereo: a sweep from 200 Hz up, which never repeats, so a shift of one sample shows.
    static let pcm = PCMFormat.int16(sampleRate: 48_000, channelCount: 2)

    /// The sweep's frame `n` (both channels alike).
    static func sweep(_ n: Int) -> Int16 {
        let t = Double(n) / 48_000
        return Int16(8000 * sin(2 * Double.pi * (200 * t + 100 * t * t)))
    }

    /// The sweep's frames `range` as an audio chunk on the recording's timeline.
    static func chunk(_ range: Range<Int>) -> EncodedPreRoll.AudioChunk {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count * 4)
        for n in range {
            let sample = UInt16(bitPattern: sweep(n))
            for _ in 0..<2 { bytes += [UInt8(sample & 0xFF), UInt8(sample >> 8)] }
        }
        return .init(bytes: bytes, time: Int64(range.lowerBound), frameCount: range.count)
    }

    /// The first channel of a movie's audio as 16-bit samples, decoded by FFmpeg.
    static func decodedAudio(_ path: String) throws -> [Int16] {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-af", "pan=mono|c0=c0", "-f", "s16le", "-"])
        #expect(result.status == 0, "ffmpeg: \(result.error)")
        return SyncChecker.int16Samples(result.outputData)
    }

    /// Writes a clip of the test pattern (`encoded(200)`) with the sweep as its audio in
    /// `codec`: the pre-roll holds what the writing thread has once `given` frames are captured,
    /// then the rest comes live. The audio comes in chunks of 1100 frames, which a clip's start
    /// need not fall between, 0.3 s ahead of the video, as a live recording's audio can reach
    /// the writing thread before the encoder gives the pictures. With `secondTrigger`, the end
    /// moves to its `end` once an access unit decoded at its `at` comes.
    /// - Returns: the clip's start and the AAC encoder's delay (0 for LPCM).
    static func writeClipWithAudio(_ codec: AudioEncoderSettings.Codec, to path: String, given: Int, requestedStart: Int64,
                                   end: Int64, secondTrigger: (at: Int64, end: Int64)? = nil) throws -> (start: Int64, priming: Int64) {
        var (samples, tracks) = try encoded(200)
        let aac = codec == .aac ? try AACEncoder(input: pcm, bitRate: 128_000) : nil
        tracks.audio = aac.map { AudioTrackFormat(aac: $0.format) } ?? AudioTrackFormat(pcm: pcm)
        var preRoll = EncodedPreRoll(duration: .seconds(1), byteLimit: 64 << 20, videoTimescale: 600, audioRate: 48_000)
        let audio = stride(from: 0, to: 8 * 48_000, by: 1100).map { chunk($0..<($0 + 1100)) }
        var nextChunk = 0
        // Gives `take` the chunks that start before `time` (video ticks) plus 0.3 s.
        func chunks(before time: Int64, to take: (EncodedPreRoll.AudioChunk) throws -> Void) rethrows {
            while nextChunk < audio.count, audio[nextChunk].time < (time + 180) * 80 {
                try take(audio[nextChunk])
                nextChunk += 1
            }
        }
        // The encoder gives no access unit before its picture is captured.
        let kept = samples.filter { max($0.decodeTime, $0.presentationTime) < Int64(given) * 20 }
        for sample in kept {
            chunks(before: sample.decodeTime) { preRoll.append($0) }
            preRoll.append(sample)
        }
        let clip = try EventClip(path: path, tracks: tracks, configuration: MovieWriter.Configuration(creationTime: goldenCreationTime),
                                 orientation: .up, preRoll: preRoll, requestedStart: requestedStart, end: end,
                                 audioFormat: (pcm, aac))
        var extended = false
        for sample in samples.dropFirst(kept.count) {
            if let secondTrigger, sample.decodeTime >= secondTrigger.at, !extended {
                extended = true
                #expect(clip.extend(to: secondTrigger.end))
            }
            try chunks(before: sample.decodeTime) { try clip.append($0) }
            try clip.append(sample)
        }
        while !clip.isComplete(audioEnded: false), nextChunk < audio.count {
            try clip.append(audio[nextChunk])
            nextChunk += 1
        }
        #expect(clip.isComplete(audioEnded: false))
        try clip.finish()
        return (clip.start, Int64(aac?.format.primingFrames ?? 0))
    }

    /// Checks that the clip at `path` has its audio from its first picture, with no empty edit,
    /// for as long as its video (which lasts longer than `minimumSeconds`), and that the audio
    /// is the sweep from frame `firstFrame` on, to the sample, throughout.
    static func expectAudioCoversVideo(_ path: String, codec: AudioEncoderSettings.Codec, priming: Int64, firstFrame: Int,
                                       minimumSeconds: Double) throws {
        let info = try MovieInfo(path: path)
        let video = try #require(info.videoTrack), sound = try #require(info.tracks.first { $0.mediaType == "soun" })
        #expect(sound.editList.count == 1 && sound.editList.first?.mediaTime == priming,
                "the audio starts at its first picture, after the encoder's delay of \(priming) frames, with no empty edit: \(sound.editList)")
        #expect(video.editList.count == 1, "the video starts at 0: \(video.editList)")
        let scale = Double(info.movieHeader.timescale)
        let videoSeconds = Double(video.editList.reduce(0) { $0 + $1.segmentDuration }) / scale
        let audioSeconds = Double(sound.editList.reduce(0) { $0 + $1.segmentDuration }) / scale
        #expect(videoSeconds > minimumSeconds, "the video runs past the clip's end: \(videoSeconds) s")
        #expect(abs(audioSeconds - videoSeconds) <= 1024.0 / 48_000, "audio \(audioSeconds) s, video \(videoSeconds) s")
        let streams = try ffprobeStreams(path)
        #expect(streams.filter { $0.codec_type != "data" }.map(\.start_time) == ["0.000000", "0.000000"], "\(streams.map(\.start_time))")
        // FFmpeg decodes the last AAC access unit whole, past the edit's end.
        let decoded = try decodedAudio(path)
        let expected = Int((videoSeconds * 48_000).rounded())
        #expect(decoded.count >= expected && decoded.count < expected + (codec == .aac ? 1024 : 1), "\(decoded.count) samples for \(expected)")
        func error(_ lag: Int) -> Double {
            let range = 0..<min(decoded.count, expected)
            return range.reduce(0) { sum, i in
                let d = Double(decoded[i]) - Double(sweep(firstFrame + lag + i))
                return sum + d * d
            } / Double(range.count)
        }
        let errors = (-3...3).filter { firstFrame + $0 >= 0 }.map { ($0, error($0)) }
        let best = errors.min { $0.1 < $1.1 }!
        #expect(best.0 == 0 && best.1 < (codec == .lpcm ? 0.5 : 1e5), "the clip's audio is \(best.0) samples off the sweep: \(errors)")
    }

    /// A clip's audio (AAC, encoded by the clip, or LPCM) starts at its first picture (frame
    /// 60, audio frame 96 000, inside a chunk), to the sample, and lasts as long as its video,
    /// which with B-frames runs past the clip's end (frame 150, moved there from 130 by a
    /// second trigger after audio past frame 130 came). Before the fix an AAC clip's first
    /// access unit was placed where the chunk that made the encoder give it began (an empty
    /// edit of 1920 frames), and the audio of both stopped at the clip's end, 2 frames short of
    /// its video.
    @Test(arguments: [AudioEncoderSettings.Codec.aac, .lpcm])
    func aClipsAudioStartsAtItsFirstPictureAndLastsAsLongAsItsVideo(codec: AudioEncoderSettings.Codec) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("event.mov")
        let (start, priming) = try Self.writeClipWithAudio(codec, to: path, given: 100, requestedStart: 70 * 20, end: 130 * 20,
                                                           secondTrigger: (at: 128 * 20, end: 150 * 20))
        #expect(start == 60 * 20)
        try Self.expectAudioCoversVideo(path, codec: codec, priming: priming, firstFrame: 96_000, minimumSeconds: 90.0 / 30)
    }

    /// A clip asked for before the encoder gave its first picture (the pre-roll is empty, and
    /// 3 s of pre-roll reach before the recording) starts with the recording's first picture,
    /// its audio with it. Before the fix it started at the time asked for, so both tracks
    /// began with an empty edit of almost 3 s.
    @Test(arguments: [AudioEncoderSettings.Codec.aac, .lpcm])
    func aClipAskedForBeforeTheFirstPictureStartsWithIt(codec: AudioEncoderSettings.Codec) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("event.mov")
        let (start, priming) = try Self.writeClipWithAudio(codec, to: path, given: 0, requestedStart: 24 - 1800, end: 24 + 600)
        #expect(start == 0)
        try Self.expectAudioCoversVideo(path, codec: codec, priming: priming, firstFrame: 0, minimumSeconds: 624.0 / 600)
    }
}
