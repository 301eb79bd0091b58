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
            if n % 32 == 0 {
                preRoll.append(.init(packets: [[UInt8]](repeating: [UInt8](repeating: 1, count: 300), count: 1), startTime: Int64(n) * 1600))
            }
            largest = max(largest, preRoll.byteCount)
        }
        // Ten seconds plus at most one group of pictures, and the audio beside it.
        #expect(largest <= (30 * 11 + 1) * 1000 + 12 * 300 * 12, "\(largest) bytes")
        #expect(preRoll.audioPackets.first.map { $0.startTime >= preRoll.video(from: 0)[0].presentationTime * 80 - 1024 - 1600 } == true)
    }

    @Test func theByteCapDropsWholeGroupsEvenWithinTheDuration() {
        var preRoll = EncodedPreRoll(duration: .seconds(10), byteLimit: 100_000, videoTimescale: 600, audioRate: 48_000)
        for n in 0..<300 { preRoll.append(frame(n)) }
        #expect(preRoll.byteCount <= 100_000 + 30 * 1000)
        #expect(preRoll.video(from: 0).first?.isKeyframe == true)
    }
}
