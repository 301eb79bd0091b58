import MovieContainer

/// Predicts the size of the segment being encoded, so a switch by size (``RecordingPipeline/Segmenting/fileSize``)
/// is asked for before the file passes the limit rather than after: the bytes the video
/// encoder has produced for it, what the frames still inside the encoder and in the queue to it
/// will add (at the recent average of pictures that are not keyframes, and the last keyframe's
/// size for each keyframe the interval puts among them), the audio over the same span at its
/// rate, and the container's tables. The bytes on the disk lag all of that by the fragment interval and the
/// writing queue, more on a busy machine. The encoding thread alone uses it.
struct SegmentSizeEstimator {
    let limit: Double
    /// Audio bytes a second of media adds (PCM's rate, or AAC's bit rate), 0 without audio.
    let audioBytesPerSecond: Double
    let timescale: Double
    let frameDuration: Double
    /// The encoder's distance between keyframes, in frames, counted from the segment's first.
    let keyframeInterval: Int
    /// The segment being estimated, where it starts (presentation ticks), and its counts.
    private(set) var segment = 0
    private var start: Int64 = 0
    private var videoBytes = 0.0
    private var framesIn = 0
    private var framesOut = 0
    /// The sizes of the last access units that are not keyframes, and the last keyframe's.
    private var recent: [Int] = []
    private var keyframeSize = 0.0
    private var requested = false

    init(limit: UInt64, audioBytesPerSecond: Double, timescale: UInt32, frameDuration: UInt32, keyframeInterval: Int) {
        self.limit = Double(limit)
        self.audioBytesPerSecond = audioBytesPerSecond
        self.timescale = Double(timescale)
        self.frameDuration = Double(frameDuration)
        self.keyframeInterval = max(1, keyframeInterval)
    }

    /// Segment `index` starts with the frame presented at `presentation`.
    mutating func startSegment(_ index: Int, at presentation: Int64) {
        segment = index
        start = presentation
        videoBytes = 0
        framesIn = 0
        framesOut = 0
        requested = false
    }

    /// A frame of the current segment went into the encoder.
    mutating func frameIn() { framesIn += 1 }

    /// An access unit of `size` bytes came out for segment `index`.
    mutating func sampleOut(size: Int, isKeyframe: Bool, segment index: Int) {
        if isKeyframe {
            keyframeSize = Double(size)
        } else {
            recent.append(size)
            if recent.count > 60 { recent.removeFirst() }
        }
        guard index == segment else { return }  // the encoder's delay: the previous file's
        videoBytes += Double(size)
        framesOut += 1
    }

    /// The recent average size of a picture that is not a keyframe.
    private var average: Double { recent.isEmpty ? 0 : Double(recent.reduce(0, +)) / Double(recent.count) }

    /// The file's size if the switch were made at the next frame, with `queued` frames
    /// waiting for the encoder and the last frame in presented at `newest`.
    func estimate(newest: Int64, queued: Int) -> Double {
        // The frames not out yet, by their place in the segment: the interval's keyframes
        // among them at the last keyframe's size, the others at the average.
        let pending = framesOut..<(max(framesOut, framesIn) + queued)
        let keyframes = pending.filter { $0 > 0 && $0 % keyframeInterval == 0 }.count
        let pendingBytes = Double(pending.count - keyframes) * average + Double(keyframes) * keyframeSize
        let seconds = (Double(newest - start) + frameDuration * Double(queued + 1)) / timescale
        // A fragment's moof and the movie atom's tables: about 48 bytes a frame with the audio's
        // entries beside it, and the fixed atoms.
        let tables = 4096 + 48 * Double(framesIn + queued)
        return videoBytes + pendingBytes + audioBytesPerSecond * seconds + tables
    }

    /// Whether to ask for the switch now: the estimate with one more frame reaches the limit,
    /// and it was not asked for this segment already. It waits for a few pictures past the
    /// first keyframe, whose size says nothing of the others.
    mutating func isSwitchDue(newest: Int64, queued: Int) -> Bool {
        guard !requested, recent.count >= 3 else { return false }
        guard estimate(newest: newest, queued: queued) + average >= limit else { return false }
        requested = true
        return true
    }
}
