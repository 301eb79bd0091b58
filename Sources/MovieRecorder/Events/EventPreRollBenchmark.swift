import MovieContainer
import MovieCapture
import MovieEncoding
import MoviePlatform

/// The event clips' pre-roll alone, for the benchmarks: 20 s of the test pattern encoded by
/// the recording's H.264 encoder at a constant bit rate (x264's HRD filler holds the rate, as a
/// busy camera's picture would), then looped for as long as asked through the pre-roll the
/// writing thread keeps, each access unit and each 1/30 s of 48 kHz stereo PCM in storage of its
/// own as the pipeline gives them.
@_spi(Benchmarks) public final class EventPreRollBenchmark {
    private let samples: [EncodedVideoSample]
    private let timescale: UInt32 = 600
    private let videoTrack: VideoTrackFormat
    /// The encoded bit rate, as it came out.
    public let measuredKilobitsPerSecond: Double

    /// Encodes 20 s of `width`×`height` at 30 fps, an IDR every `keyframeInterval` frames.
    public init(width: Int, height: Int, kilobitsPerSecond: Int, keyframeInterval: Int = 60) throws {
        var settings = VideoEncoderSettings()
        settings.preset = "ultrafast"
        settings.keyframeInterval = keyframeInterval
        settings.rateControl = .bitrate(kilobitsPerSecond: kilobitsPerSecond, maximumKilobitsPerSecond: kilobitsPerSecond,
                                        bufferKilobits: kilobitsPerSecond)
        settings.options["nal-hrd"] = "cbr"
        let format = VideoFormat(width: width, height: height, frameRate: FrameRate(frames: 30))
        let encoder = try makeVideoEncoder(format: format, timescale: timescale, settings: settings)
        defer { encoder.close() }
        let renderer = TestPatternRenderer(width: width, height: height, pixelFormat: .i420)
        var bytes = [UInt8](repeating: 0, count: PixelFormat.i420.byteCount(width: width, height: height))
        var samples: [EncodedVideoSample] = []
        for n in 0..<600 {
            bytes.withUnsafeMutableBytes { renderer.render(frame: UInt64(n), into: $0.baseAddress!) }
            let frame = try VideoFrame(copying: bytes, width: width, height: height, pixelFormat: .i420,
                                       timestamp: UInt64(n) * 33_333_333, sequenceNumber: UInt64(n))
            if let sample = try encoder.encode(frame, presentationTime: Int64(n) * 20, forceKeyframe: false) { samples.append(sample) }
        }
        samples += try encoder.flush()
        self.samples = samples
        videoTrack = encoder.trackFormat(timescale: timescale, orientation: .up, nominalFrameDuration: 20, color: nil)
        measuredKilobitsPerSecond = Double(samples.reduce(0) { $0 + $1.data.count }) * 8 / 20 / 1000
    }

    /// Feeds `seconds` of media (the 20 s looped) through a pre-roll of `duration`, calling
    /// `observe` every `every` frames with the frames fed and the bytes the pre-roll holds.
    /// - Returns: the most bytes the pre-roll held.
    public func feed(seconds: Int, duration: Duration, every: Int, observe: (Int, Int) -> Void) -> Int {
        var preRoll = EncodedPreRoll(duration: duration, byteLimit: 1 << 30, videoTimescale: timescale, audioRate: 48_000)
        let pcm = [UInt8](repeating: 0, count: 1600 * 4)
        var largest = 0
        for n in 0..<(seconds * 30) {
            let loop = Int64(n / samples.count) * Int64(samples.count) * 20
            var sample = samples[n % samples.count]
            sample.data = sample.data.withUnsafeBytes { [UInt8]($0) }  // storage of its own, as the encoder gives it
            sample.presentationTime += loop
            sample.decodeTime += loop
            preRoll.append(sample)
            preRoll.append(.init(bytes: pcm.withUnsafeBytes { [UInt8]($0) }, time: Int64(n) * 1600, frameCount: 1600))
            largest = max(largest, preRoll.byteCount)
            if n % every == 0 { observe(n, preRoll.byteCount) }
        }
        return largest
    }

    /// How long the writing thread is held up beginning a clip from a full pre-roll of
    /// `duration`: the file created, the pre-roll's pictures written and its audio encoded to
    /// AAC, in seconds. The clip is written to `path`, finished and removed.
    public func secondsToBeginAClip(at path: String, duration: Duration) throws -> Double {
        let pcm = PCMFormat(sampleRate: 48_000, channelCount: 2, bitsPerChannel: 16)
        let aac = try AACEncoder(input: pcm, bitRate: 128_000)
        var preRoll = EncodedPreRoll(duration: duration, byteLimit: 1 << 30, videoTimescale: timescale, audioRate: 48_000)
        let silence = [UInt8](repeating: 0, count: 1600 * 4)
        for (n, sample) in samples.enumerated() {
            preRoll.append(sample)
            preRoll.append(.init(bytes: silence, time: Int64(n) * 1600, frameCount: 1600))
        }
        let newest = preRoll.newestTime ?? 0
        let tracks = RecordingSegment.Tracks(video: videoTrack, audio: AudioTrackFormat(aac: aac.format))
        var configuration = MovieWriter.Configuration(creationTime: QuickTimeTimestamp(unixSeconds: 1_704_067_200))
        configuration.fragmentInterval = .seconds(1)
        let start = MonotonicClock.now()
        let clip = try EventClip(path: path, tracks: tracks, configuration: configuration, orientation: .up, preRoll: preRoll,
                                 requestedStart: newest - preRoll.durationTicks, end: newest + 20, audioFormat: (pcm, aac))
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        try clip.finish()
        _ = clip.segment.closeAndReadBack(failed: false, fragmented: true)
        try? RandomAccessFile.remove(path)
        return elapsed
    }
}
