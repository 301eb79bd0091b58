import MovieContainer

/// Predicts the size of the segment being encoded, so a switch by size (``RecordingPipeline/Segmenting/fileSize``)
/// is placed at the frame that brings the file nearest the limit rather than after it has
/// passed it: the bytes the video encoder has produced for it, what the frames still inside
/// the encoder and in the queue to it will add (at the recent average of pictures that are not
/// keyframes, and the last keyframe's size for the segment's first frame and each keyframe the
/// interval puts among them), the audio over the same span at its rate, and the container's
/// tables. The bytes on the disk lag all of that by the fragment interval and the writing
/// queue, more on a busy machine. The encoding thread alone uses it.
///
/// The encoder holds its pictures for its delay (17 frames for x264's defaults on two cores:
/// lookahead, B-frames, frame threads; more on more cores), so a file shorter than that is
/// predicted before any of its own pictures are out, and the recording's first file before
/// any picture is. Until one is, the sizes are a ``TrialEncode``'s, run when the audio alone
/// fills a quarter of the limit first: 48 kHz stereo LPCM, 192 kB a second, fills 120 kB in
/// 19 frames.
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
    private var keyframeSize: Double?
    /// A trial encode's keyframe and picture sizes, used until the encoder's own are known;
    /// whether one was asked for.
    private var trial: (keyframe: Double, picture: Double)?
    private var trialAsked = false

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

    /// Whether to run a ``TrialEncode`` now: the encoder has put out no picture yet, and the
    /// audio and tables alone already fill a quarter of the limit, so the switch may be due
    /// before it does, even where the video takes most of the file. Asked once.
    mutating func needsTrial(newest: Int64, queued: Int) -> Bool {
        guard !trialAsked, keyframeSize == nil, recent.isEmpty else { return false }
        guard estimate(newest: newest, queued: queued, sizes: Sizes(keyframe: 0, picture: 0)) >= limit / 4 else { return false }
        trialAsked = true
        return true
    }

    /// A trial encode's sizes: a keyframe and the picture after it.
    mutating func learnFromTrial(keyframe: Int, picture: Int) { trial = (Double(keyframe), Double(picture)) }

    /// The sizes a prediction uses, in bytes, and whether a trial's are among them.
    private struct Sizes {
        var keyframe: Double
        var picture: Double
        var isTrial = false
    }

    /// The keyframe and picture sizes to predict with: the encoder's (the pictures' once a few
    /// have come past the first keyframe, whose size says nothing of the others), else a
    /// trial's, else none.
    private var sizes: Sizes? {
        let picture = recent.count >= 3 ? Double(recent.reduce(0, +)) / Double(recent.count) : trial?.picture
        guard let keyframe = keyframeSize ?? trial?.keyframe, let picture else { return nil }
        return Sizes(keyframe: keyframe, picture: picture, isTrial: keyframeSize == nil || recent.count < 3)
    }

    /// The file's size if it takes `queued` frames after the last one into the encoder,
    /// presented at `newest`, and the switch is made at the frame after them.
    private func estimate(newest: Int64, queued: Int, sizes: Sizes) -> Double {
        // The frames not out yet, by their place in the segment: its first (the IDR the
        // switch forced) and the interval's keyframes at the keyframe size, the others at
        // the average.
        let pending = framesOut..<(max(framesOut, framesIn) + queued)
        let keyframes = keyframeCount(in: pending)
        let pendingBytes = Double(pending.count - keyframes) * sizes.picture + Double(keyframes) * sizes.keyframe
        let seconds = (Double(newest - start) + frameDuration * Double(queued + 1)) / timescale
        // A fragment's moof and the movie atom's tables: about 48 bytes a frame with the audio's
        // entries beside it, and the fixed atoms.
        let tables = 4096 + 48 * Double(framesIn + queued)
        return videoBytes + pendingBytes + audioBytesPerSecond * seconds + tables
    }

    /// How many of the frames at `places` in the segment are keyframes: its first, and every
    /// interval's.
    private func keyframeCount(in places: Range<Int>) -> Int {
        guard !places.isEmpty else { return 0 }
        return (places.upperBound - 1) / keyframeInterval - (places.lowerBound + keyframeInterval - 1) / keyframeInterval + 1
    }

    /// How many frames after the newest the file takes before the switch, at least the
    /// `queued` ones already on their way to it; nil until the sizes are known. With the
    /// encoder's sizes, the count that brings the predicted size nearest the limit, over or
    /// under: a keyframe the interval puts there can be a fifth of it. With a trial's, which
    /// come out low (its rate control sees two frames, not the lookahead: a third low for the
    /// test pattern), the most that stay within it. Refined at every frame.
    func framesBeforeSwitch(newest: Int64, queued: Int) -> Int? {
        guard let sizes else { return nil }
        func size(_ count: Int) -> Double { estimate(newest: newest, queued: count, sizes: sizes) }
        // The size grows with every frame: halve the span between the most frames within the
        // limit and the fewest past it.
        var within = queued, past = queued + Self.farthest
        guard size(within) <= limit else { return queued }
        guard size(past) > limit else { return past }
        while past - within > 1 {
            let middle = (within + past) / 2
            if size(middle) <= limit { within = middle } else { past = middle }
        }
        return !sizes.isTrial && size(past) - limit < limit - size(within) ? past : within
    }

    /// The most frames ahead a switch is placed (six days at 30 frames a second), so its time
    /// stays far from overflowing.
    static let farthest = 1 << 24
}
