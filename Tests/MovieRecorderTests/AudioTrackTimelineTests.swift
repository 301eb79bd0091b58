import Testing
@testable import MovieCapture
@testable import MovieRecorder

/// Where the audio thread puts audio: 48 kHz buffers of 960 frames (20 ms) against a video
/// that starts at 1 s on the monotonic clock.
@Suite struct AudioTrackTimelineTests {
    let videoStart: UInt64 = 1_000_000_000

    func buffer(at nanoseconds: UInt64, frames: Int = 960) -> AudioBuffer {
        AudioBuffer(bytes: [UInt8](repeating: 0, count: frames * 4), frameCount: frames, timestamp: nanoseconds)
    }

    @Test func framesBeforeTheFirstVideoFrameAreSkipped() {
        var timeline = AudioTrackTimeline(rate: 48_000)
        let placement = timeline.place(buffer(at: 990_000_000), videoStart: videoStart, videoEnd: nil)
        #expect(placement == .init(silenceFrames: 0, startTime: 0, frames: 480..<960))
        #expect(timeline.position == 480)
    }

    @Test func timeFollowsTheSampleCountAndOnlyAnOverrunIsFilledWithSilence() {
        var timeline = AudioTrackTimeline(rate: 48_000)
        _ = timeline.place(buffer(at: 1_000_000_000), videoStart: videoStart, videoEnd: nil)
        // 3 ms late: jitter, not a gap.
        let next = timeline.place(buffer(at: 1_023_000_000), videoStart: videoStart, videoEnd: nil)
        #expect(next == .init(silenceFrames: 0, startTime: 960, frames: 0..<960))
        // 200 ms later than the samples say: an overrun, filled up to the buffer's own time.
        let late = timeline.place(buffer(at: 1_240_000_000), videoStart: videoStart, videoEnd: nil)
        #expect(late == .init(silenceFrames: 11_520 - 1_920, startTime: 11_520, frames: 0..<960))
        #expect(timeline.position == 12_480)
    }

    @Test func framesPastTheVideosEndAreCut() {
        var timeline = AudioTrackTimeline(rate: 48_000)
        let videoEnd = videoStart + 10_000_000
        let placement = timeline.place(buffer(at: 1_000_000_000), videoStart: videoStart, videoEnd: videoEnd)
        #expect(placement == .init(silenceFrames: 0, startTime: 0, frames: 0..<480))
        let after = timeline.place(buffer(at: 1_020_000_000), videoStart: videoStart, videoEnd: videoEnd)
        #expect(after.frames.isEmpty)
        #expect(timeline.position == 480)
    }

    @Test func theFirstBufferAfterAPauseGoesWhereItsTimeSays() {
        var timeline = AudioTrackTimeline(rate: 48_000)
        _ = timeline.place(buffer(at: 1_000_000_000), videoStart: videoStart, videoEnd: nil)
        // 3 ms after the last frame: jitter would close it up, a resync fills it.
        let later = timeline.place(buffer(at: 1_023_000_000), videoStart: videoStart, videoEnd: nil, resync: true)
        #expect(later == .init(silenceFrames: 144, startTime: 1_104, frames: 0..<960))
        #expect(timeline.position == 2_064)
        // 5 ms before the end of what is written: the overlap is skipped.
        let earlier = timeline.place(buffer(at: 1_038_000_000), videoStart: videoStart, videoEnd: nil, resync: true)
        #expect(earlier == .init(silenceFrames: 0, startTime: 2_064, frames: 240..<960))
        #expect(timeline.position == 2_784)
    }

    /// An overlap longer than a buffer: the pipeline keeps resyncing until a buffer has frames
    /// written, so the one after a wholly skipped buffer still goes where its time says.
    @Test func anOverlapLongerThanABufferIsSkippedAcrossBuffers() {
        var timeline = AudioTrackTimeline(rate: 48_000)
        _ = timeline.place(buffer(at: 1_000_000_000, frames: 1_920), videoStart: videoStart, videoEnd: nil)  // up to 40 ms
        let skipped = timeline.place(buffer(at: 1_005_000_000), videoStart: videoStart, videoEnd: nil, resync: true)
        #expect(skipped.frames.isEmpty && timeline.position == 1_920)
        let next = timeline.place(buffer(at: 1_025_000_000), videoStart: videoStart, videoEnd: nil, resync: true)
        #expect(next == .init(silenceFrames: 0, startTime: 1_920, frames: 720..<960))
        #expect(timeline.position == 2_160)
    }
}
