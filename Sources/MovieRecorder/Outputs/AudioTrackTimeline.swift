import MovieCapture

/// Where the audio thread puts each audio buffer on the audio track: in ticks of the sample
/// rate counted from the first video frame.
///
/// Once placed, time follows the sample count, so clock jitter never opens gaps; only a gap of
/// more than a tenth of a second (an overrun) is filled with silence. After a pause the first
/// buffer goes exactly where its time says (silence fills up to it, or frames that overlap
/// what is written are skipped), so a pause takes the same time out of audio and video.
/// Frames before the first video frame are skipped and frames past the video's end are cut.
struct AudioTrackTimeline {
    /// How one buffer goes on the track.
    struct Placement: Equatable {
        /// Frames of silence to write first.
        var silenceFrames: Int
        /// The time of the first frame written, in ticks of the sample rate.
        var startTime: Int64
        /// The buffer's frames to write; empty when none fall inside the movie.
        var frames: Range<Int>
    }

    /// The sample rate, in ticks per second.
    let rate: Int64
    /// The time of the next frame; nil until the first buffer is placed.
    private(set) var position: Int64?

    init(rate: Int64) { self.rate = rate }

    /// Places `buffer` after the frames placed before it.
    /// - Parameters:
    ///   - videoStart: the first video frame's time, in nanoseconds.
    ///   - videoEnd: where the video ends, in nanoseconds, once the recording is stopping.
    ///   - resync: whether the buffer is the first after a pause, which goes where its time
    ///     says rather than after the frames before it.
    mutating func place(_ buffer: AudioBuffer, videoStart: UInt64, videoEnd: UInt64?, resync: Bool = false) -> Placement {
        var start = RecordingPipeline.ticks(Int64(bitPattern: buffer.timestamp &- videoStart), rate: rate)
        var silence = 0
        var skip = 0
        if let position, resync {
            silence = Int(max(0, start - position))
            skip = Int(min(Int64(buffer.frameCount), max(0, position - start)))
            start = max(start, position)
            self.position = start
        } else if let position {
            if start - position > rate / 10 {
                silence = Int(start - position)
                self.position = start
            }
            start = self.position!
        } else if start < 0 {
            skip = Int(min(Int64(buffer.frameCount), -start))
            start += Int64(skip)
        }
        var end = buffer.frameCount
        if let videoEnd {
            let endTicks = RecordingPipeline.ticks(Int64(videoEnd - videoStart), rate: rate)
            end = Int(max(0, min(Int64(end - skip), endTicks - start))) + skip
        }
        if end > skip { position = start + Int64(end - skip) }
        return Placement(silenceFrames: silence, startTime: start, frames: skip..<end)
    }
}
