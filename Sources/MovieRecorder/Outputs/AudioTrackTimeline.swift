import MovieCapture

/// Where the writing thread puts each audio buffer on the audio track: in ticks of the sample
/// rate counted from the first video frame.
///
/// Buffers that arrive before the first video frame are held (the newest 500). Once placed,
/// time follows the sample count, so clock jitter never opens gaps; only a gap of more than a
/// tenth of a second (an overrun) is filled with silence. Frames before the first video frame
/// are skipped and frames past the video's end are cut.
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
    private var held: [AudioBuffer] = []

    init(rate: Int64) { self.rate = rate }

    /// Keeps `buffer` until the video starts, dropping the oldest beyond 500.
    mutating func hold(_ buffer: AudioBuffer) {
        held.append(buffer)
        if held.count > 500 { held.removeFirst() }
    }

    /// The buffers held so far, oldest first; the timeline keeps none.
    mutating func takeHeld() -> [AudioBuffer] {
        defer { held.removeAll() }
        return held
    }

    /// Places `buffer` after the frames placed before it.
    /// - Parameters:
    ///   - videoStart: the first video frame's time, in nanoseconds.
    ///   - videoEnd: where the video ends, in nanoseconds, once the recording is stopping.
    mutating func place(_ buffer: AudioBuffer, videoStart: UInt64, videoEnd: UInt64?) -> Placement {
        var start = RecordingPipeline.ticks(Int64(bitPattern: buffer.timestamp &- videoStart), rate: rate)
        var silence = 0
        var skip = 0
        if let position {
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
