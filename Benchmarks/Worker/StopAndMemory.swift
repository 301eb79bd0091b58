@_spi(Benchmarks) import MovieContainer
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

/// Case c: a long recording through the real writer, configured as `RecordingPipeline`
/// configures it, and the time its stop takes.
///
/// `stop-memory --seconds N --output PATH [--no-fragments]` appends N seconds of already
/// encoded media: 30 fps H.264 (the avcC of Fixtures/testsrc-ipp.264, a keyframe every 60
/// frames, ~100 KB keyframes and 10–30 KB other frames, no B-frames) and 48 kHz stereo 16-bit
/// PCM in buffers of 1600 frames, interleaved by time. The media bytes are left as a hole in a
/// sparse file (``MovieWriter/omitsMediaData``); every table, fragment header and the movie
/// atom are those of a real recording. The worker keeps nothing per sample: sizes come from a
/// hash of the frame number and all samples point into one buffer of zeros.
///
/// Reports `finalizeSeconds` — `finish` plus `fdatasync`, what the pipeline does at stop —
/// and the sample counts and file size.
func stopAndMemory(_ arguments: [String]) throws {
    var seconds: Int?
    var output: String?
    var fragmented = true
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
        switch argument {
        case "--seconds": seconds = remaining.popFirst().flatMap { Int($0) }
        case "--output": output = remaining.popFirst()
        case "--no-fragments": fragmented = false
        default: fail("stop-memory: unknown argument '\(argument)'")
        }
    }
    guard let seconds, seconds > 0, let output else {
        fail("usage: bench-worker stop-memory --seconds N --output PATH [--no-fragments]")
    }

    let rate = FrameRate(frames: 30)
    let timescale = rate.timescale  // 600
    let frameDuration = Int64(rate.frameDuration)
    let pcm = PCMFormat(sampleRate: 48_000, channelCount: 2, bitsPerChannel: 16)
    let framesPerBuffer = 1600  // 1/30 s
    let h264 = try AVCDecoderConfiguration(parameterSets: [
        hexBytes("674d400bda0a11f970110000030001000003003c8f142aa0"),  // SPS of Fixtures/testsrc-ipp.264
        hexBytes("68ef0672"),  // its PPS
    ])

    // What RecordingPipeline.init does: creation date and software added to the metadata, a
    // fragment every second unless turned off, the orientation in the video track's matrix.
    let creationTime = QuickTimeTimestamp(unixSeconds: 1_704_067_200)  // 2024-01-01
    var configuration = MovieWriter.Configuration(creationTime: creationTime,
                                                  metadata: [.creationDate(creationTime), .software("MovieRecorder")])
    configuration.fragmentInterval = fragmented ? .seconds(1) : nil
    configuration.durability = .none
    let file = try MovieFileSink(path: output, overwrite: true)
    let writer = MovieWriter(sink: file, configuration: configuration)
    writer.omitsMediaData = true
    let video = try writer.addVideoTrack(VideoTrackFormat(h264: h264, timescale: timescale,
                                                          orientation: try VideoOrientation(rotationAngle: 90),
                                                          nominalFrameDuration: rate.frameDuration))
    let audio = try writer.addAudioTrack(AudioTrackFormat(pcm: pcm))

    let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    defer { zeros.deallocate() }
    zeros.initializeMemory(as: UInt8.self, repeating: 0)
    let audioBuffer = UnsafeRawBufferPointer(rebasing: zeros[0..<(framesPerBuffer * pcm.bytesPerFrame)])

    let frameCount = seconds * Int(rate.frames)
    let recordStart = ContinuousClock.now
    for n in 0..<frameCount {
        let isSync = n % 60 == 0
        let size = sampleSize(frame: n, isSync: isSync)
        let time = Int64(n) * frameDuration
        try writer.appendVideoSample(UnsafeRawBufferPointer(rebasing: zeros[0..<size]), to: video,
                                     decodeTime: time, presentationTime: time, isSync: isSync)
        // The buffer captured during this frame (the same 1/30 s).
        try writer.appendAudioFrames(audioBuffer, to: audio, startTime: Int64(n * framesPerBuffer))
    }
    report("recordSeconds", elapsedSeconds(since: recordStart))

    // A real recording of this length has long been written back by the kernel (dirty pages
    // expire after 30 s); here it took seconds. Flush it outside the timed stop so the stop
    // pays only for what a real one would: the last fragment, the movie atom, the header.
    let flushStart = ContinuousClock.now
    try file.synchronize()
    report("preStopSyncSeconds", elapsedSeconds(since: flushStart))

    // The stop, as RecordingPipeline.writeLoop ends: finish with the end times, then fdatasync.
    let stopStart = ContinuousClock.now
    let summary = try writer.finish(endTimes: [video: Int64(frameCount) * frameDuration,
                                               audio: Int64(frameCount * framesPerBuffer)])
    try file.synchronize()
    let finalize = elapsedSeconds(since: stopStart)
    try file.close()

    report("finalizeSeconds", finalize)
    report("videoSamples", Double(summary.sampleCounts[video] ?? 0))
    report("audioSamples", Double(summary.sampleCounts[audio] ?? 0))
    report("fileSize", Double(summary.fileSize))
    report("durationSeconds", Double(summary.duration) / Double(summary.movieTimescale))
}

/// A deterministic size for frame `n`: 100 KB + up to 4 KB for a keyframe, 10–30 KB otherwise.
private func sampleSize(frame n: Int, isSync: Bool) -> Int {
    var x = UInt64(n) &* 0x9E37_79B9_7F4A_7C15  // splitmix64's finalizer
    x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
    x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
    x ^= x >> 31
    return isSync ? 100_000 + Int(x % 4096) : 10_000 + Int(x % 20_001)
}

private func elapsedSeconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

private func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var digits = hex.utf8.makeIterator()
    while let high = digits.next(), let low = digits.next() {
        bytes.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)!)
    }
    return bytes
}
