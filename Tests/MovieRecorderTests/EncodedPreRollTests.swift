import Testing
@testable import MovieEncoding
@testable import MovieRecorder

/// The pre-roll of an event clip keeps whole groups of pictures reaching back its duration,
/// the audio beside them, and no more than its byte cap.
@Suite struct EncodedPreRollTests {
    /// Frame `n` of a 30 fps stream (600 ticks a second) with an IDR every `gop` frames.
    func frame(_ n: Int, gop: Int = 30, size: Int = 1000) -> EncodedVideoSample {
        EncodedVideoSample(data: [UInt8](repeating: UInt8(n % 256), count: size), presentationTime: Int64(n) * 20,
                           decodeTime: Int64(n) * 20, isKeyframe: n % gop == 0)
    }

    @Test func aClipStartsOnTheLastKeyframeAtOrBeforeItsStart() {
        var preRoll = EncodedPreRoll(duration: .seconds(3), byteLimit: 1 << 30, videoTimescale: 600, audioRate: 48_000)
        for n in 0..<300 { preRoll.append(frame(n)) }
        // 3 s back from frame 299 is frame 209: the IDR at or before it is frame 180.
        let clip = preRoll.video(from: 209 * 20)
        #expect(clip.first?.presentationTime == 180 * 20 && clip.first?.isKeyframe == true)
        #expect(clip.count == 120 && clip.last?.presentationTime == 299 * 20)
        // Nothing older than the group that reaches back 3 s is kept.
        let oldest = preRoll.video(from: 0).first?.presentationTime
        #expect(oldest == Int64(180 * 20), "\(String(describing: oldest))")
        #expect(preRoll.byteCount == 120 * 1000)
    }

    @Test func memoryStaysFlatOverAnHour() {
        var preRoll = EncodedPreRoll(duration: .seconds(10), byteLimit: 1 << 30, videoTimescale: 600, audioRate: 48_000)
        var largest = 0
        for n in 0..<(30 * 3600) {
            preRoll.append(frame(n))
            // 1600 frames of 48 kHz stereo 16-bit PCM beside each picture, and a metadata sample a second.
            preRoll.append(.init(bytes: [UInt8](repeating: 1, count: 6400), time: Int64(n) * 1600, frameCount: 1600))
            if n % 30 == 0 { preRoll.append(.init(track: 0, time: Int64(n) * 20, items: [])) }
            largest = max(largest, preRoll.byteCount)
        }
        // Ten seconds plus at most one group of pictures, and the audio beside it.
        #expect(largest <= (30 * 11 + 1) * (1000 + 6400), "\(largest) bytes")
        let oldestPicture = preRoll.video(from: 0)[0].presentationTime
        #expect(preRoll.audioChunks.first.map { $0.end > oldestPicture * 80 && $0.time <= oldestPicture * 80 } == true)
        // The metadata in force at the oldest picture, and the samples after it.
        #expect(preRoll.metadata.count <= 12 + 64 && preRoll.metadata.first.map { $0.time <= oldestPicture } == true)
    }

    @Test func theByteCapDropsWholeGroupsEvenWithinTheDuration() {
        var preRoll = EncodedPreRoll(duration: .seconds(10), byteLimit: 100_000, videoTimescale: 600, audioRate: 48_000)
        for n in 0..<300 { preRoll.append(frame(n)) }
        #expect(preRoll.byteCount <= 100_000 + 30 * 1000)
        #expect(preRoll.video(from: 0).first?.isKeyframe == true)
    }
}
