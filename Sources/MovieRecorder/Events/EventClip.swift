import MovieContainer
import MoviePlatform
import MovieEncoding

/// One event clip being written: from the last IDR at or before its requested start (taken
/// from the pre-roll) through its end, in a file of its own beside the recording, its first
/// picture at time 0. A later trigger moves the end (``extend(to:)``). The writing thread
/// alone uses it.
///
/// Every access unit decoded before the end is kept, so the pictures presented before the end
/// can all be decoded. An access unit presented after a gap (a P-frame ahead of the B-frames
/// that come after it in decode order) waits until those B-frames come, which it must precede,
/// and is left out when the clip ends first: so the clip's pictures are consecutive, through
/// at least the end.
final class EventClip {
    let segment: RecordingSegment
    /// The clip's first picture on the recording's timeline, in video ticks: its time 0.
    let start: Int64
    /// Where the clip ends on the recording's timeline, in video ticks.
    private(set) var end: Int64
    /// Whether every access unit the clip needs is in: the next one decodes after its end.
    private(set) var isComplete = false
    private(set) var frameCount = 0
    private var lastDecodeTime: Int64?
    private let frameDuration: Int64
    /// Access units presented after a gap, waiting for the B-frames that fill it.
    private var held: [EncodedVideoSample] = []
    /// The presentation times appended past the consecutive run, and where the run ends.
    private var ahead = Set<Int64>()
    private var nextPresentation: Int64

    /// Creates the clip's file and writes the pre-roll's video from the last IDR at or before
    /// `requestedStart`.
    /// - Throws: ``RecordingError`` when the file cannot be created or written.
    init(path: String, tracks: RecordingSegment.Tracks, configuration: MovieWriter.Configuration,
         orientation: VideoOrientation, preRoll: EncodedPreRoll, requestedStart: Int64, end: Int64) throws {
        let video = preRoll.video(from: requestedStart)
        start = video.first?.presentationTime ?? requestedStart
        self.end = end
        frameDuration = Int64(max(1, tracks.video.nominalFrameDuration))
        segment = try RecordingSegment(index: -1, path: path, overwrite: false, orientation: orientation,
                                       tracks: tracks, configuration: configuration)
        nextPresentation = start
        segment.start = (start, 0)
        for sample in video { try append(sample) }
    }

    /// Moves the end later (a second trigger during the post-roll); never earlier.
    func extend(to newEnd: Int64) {
        if !isComplete { end = max(end, newEnd) }
    }

    /// Appends a live access unit (times on the recording's timeline), unless the clip is
    /// complete; the first one decoded at or after the end completes it.
    func append(_ sample: EncodedVideoSample) throws {
        guard !isComplete else { return }
        guard sample.decodeTime < end else {
            // Every picture presented before the end has come (its decode time is earlier): a
            // held one presented before it follows a real gap; the others were waiting for
            // B-frames past the end.
            isComplete = true
            for waiting in held where waiting.presentationTime < end { try write(waiting) }
            held = []
            return
        }
        guard sample.presentationTime >= start else { return }  // before the clip's IDR
        if let heldMax = held.map(\.presentationTime).max(), sample.presentationTime > heldMax {
            // No B-frame filled the gap before the held pictures: a picture was dropped there.
            try writeHeld()
            nextPresentation = max(nextPresentation, ahead.min() ?? nextPresentation)
            advance()
        }
        if held.isEmpty, sample.presentationTime > nextPresentation {
            held.append(sample)
            return
        }
        try writeHeld()
        try write(sample)
    }

    private func writeHeld() throws {
        for waiting in held { try write(waiting) }
        held = []
    }

    /// Writes an access unit and moves the consecutive run on.
    private func write(_ sample: EncodedVideoSample) throws {
        try segment.appendVideo(sample, start: start)
        lastDecodeTime = sample.decodeTime
        frameCount += 1
        ahead.insert(sample.presentationTime)
        advance()
    }

    /// Moves the consecutive run over the pictures written.
    private func advance() {
        while ahead.remove(nextPresentation) != nil { nextPresentation += frameDuration }
    }

    /// Finishes the movie: its last picture lasts one frame.
    func finish() throws {
        let firstDecode = segment.firstDecodeTime ?? 0
        segment.videoEnd = (lastDecodeTime.map { $0 - start } ?? 0) + frameDuration - firstDecode
        segment.audioEnded = true
        try segment.finish(audioRate: 1, timescale: 1)
    }
}
