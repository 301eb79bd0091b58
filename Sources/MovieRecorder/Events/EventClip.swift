import MovieContainer
import MoviePlatform
import MovieEncoding

/// One event clip being written: from the last IDR at or before its requested start (taken
/// from the pre-roll) through its end, in a file of its own beside the recording, its first
/// picture at time 0, with the recording's audio over the same span (encoded afresh for AAC)
/// and its timed metadata. A later trigger moves the end (``extend(to:)``). The writing thread
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
    private(set) var isVideoComplete = false
    private(set) var frameCount = 0
    private var lastDecodeTime: Int64?
    private let frameDuration: Int64
    /// Access units presented after a gap, waiting for the B-frames that fill it.
    private var held: [EncodedVideoSample] = []
    /// The presentation times appended past the consecutive run, and where the run ends.
    private var ahead = Set<Int64>()
    private var nextPresentation: Int64
    private var audio: Audio?
    /// Audio that came before the video's end was known, past the clip's end.
    private var pendingAudio: [EncodedPreRoll.AudioChunk] = []

    /// The clip's audio: the PCM format, the encoder for an AAC track, the rates, and where the
    /// audio written so far ends on the recording's timeline (ticks of the sample rate).
    struct Audio {
        var format: PCMFormat
        var aac: AACEncoder?
        var rate: Int64
        var videoTimescale: Int64
        var start: Int64
        var written: Int64?

        /// Video ticks as ticks of the sample rate, rounded down as the recording cuts its audio.
        func ticks(_ video: Int64) -> Int64 { video * rate / videoTimescale }
    }

    /// Creates the clip's file and writes the pre-roll's video from the last IDR at or before
    /// `requestedStart`, its audio from the same picture on and the metadata in force there.
    /// - Parameters:
    ///   - audioFormat: the recording's PCM, with the AAC encoder an AAC track needs (the
    ///     clip's own: it is closed with the clip); nil without audio.
    /// - Throws: ``RecordingError`` when the file cannot be created or written.
    init(path: String, tracks: RecordingSegment.Tracks, configuration: MovieWriter.Configuration,
         orientation: VideoOrientation, preRoll: EncodedPreRoll, requestedStart: Int64, end: Int64,
         audioFormat: (format: PCMFormat, aac: AACEncoder?)?) throws {
        let video = preRoll.video(from: requestedStart)
        // With no picture kept yet (a trigger before the encoder's first), the clip starts with
        // the recording's first picture, at 0 on its timeline, not before it.
        let start = video.first?.presentationTime ?? max(0, requestedStart)
        self.start = start
        self.end = end
        frameDuration = Int64(max(1, tracks.video.nominalFrameDuration))
        let timescale = Int64(tracks.video.timescale)
        audio = audioFormat.map { pcm in
            let rate = Int64(pcm.format.sampleRate)
            return Audio(format: pcm.format, aac: pcm.aac, rate: rate, videoTimescale: timescale,
                         start: start * rate / timescale)
        }
        do {
            segment = try RecordingSegment(index: -1, path: path, overwrite: false, orientation: orientation,
                                           tracks: tracks, configuration: configuration)
        } catch {
            audioFormat?.aac?.close()
            throw error
        }
        nextPresentation = start
        segment.start = (start, audio?.start ?? 0)
        try catchUp(from: preRoll, video: video)
    }

    /// Writes what the pre-roll holds of the clip: the metadata in force at its start (at time
    /// 0) and after it, its pictures and its audio.
    private func catchUp(from preRoll: EncodedPreRoll, video: [EncodedVideoSample]) throws {
        var inForce: [Int: EncodedPreRoll.MetadataSample] = [:]
        for sample in preRoll.metadata where sample.time <= start { inForce[sample.track] = sample }
        for (track, sample) in inForce.sorted(by: { $0.key < $1.key }) { try segment.appendMetadata(sample.items, track: track, time: 0) }
        for sample in preRoll.metadata where sample.time > start { try append(sample) }
        for sample in video { try append(sample) }
        for chunk in preRoll.audioChunks { try append(chunk) }
    }

    /// Moves the end later (a second trigger during the post-roll); never earlier.
    /// - Returns: false when the clip is complete already, so the trigger needs a clip of its own.
    func extend(to newEnd: Int64) -> Bool {
        guard !isVideoComplete else { return false }
        end = max(end, newEnd)
        return true
    }

    /// Whether the clip has all its media: its video, and its audio through the video's end
    /// (or the recording's audio ended).
    func isComplete(audioEnded: Bool) -> Bool {
        guard isVideoComplete else { return false }
        guard let audio, !audioEnded else { return true }
        return (audio.written ?? audio.start) >= audio.ticks(start + videoDuration)
    }

    /// How long the clip's video lasts, in video ticks: from its first access unit's decode
    /// time to a frame past its last one's, so with B-frames to the end of its last picture,
    /// which can be presented after ``end``. The audio runs as long.
    private var videoDuration: Int64 {
        (lastDecodeTime.map { $0 - start } ?? 0) + frameDuration - (segment.firstDecodeTime ?? 0)
    }

    /// Appends a live access unit (times on the recording's timeline), unless the clip is
    /// complete; the first one decoded at or after the end completes it.
    func append(_ sample: EncodedVideoSample) throws {
        guard !isVideoComplete else { return }
        guard sample.decodeTime < end else {
            // Every picture presented before the end has come (its decode time is earlier): a
            // held one presented before it follows a real gap; the others were waiting for
            // B-frames past the end.
            isVideoComplete = true
            for waiting in held where waiting.presentationTime < end { try write(waiting) }
            held = []
            try writePendingAudio(through: start + videoDuration)
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

    /// Appends a timed metadata sample (its time on the recording's timeline) presented
    /// before the clip's end.
    func append(_ sample: EncodedPreRoll.MetadataSample) throws {
        guard sample.time < end, !isVideoComplete else { return }
        try segment.appendMetadata(sample.items, track: sample.track, time: sample.time - start)
    }

    /// Appends PCM frames placed on the recording's timeline; what lies past the clip's end
    /// waits until the video is complete, which says where the audio ends.
    func append(_ chunk: EncodedPreRoll.AudioChunk) throws {
        guard audio != nil, segment.audioTrack != nil else { return }
        pendingAudio.append(chunk)
        try writePendingAudio(through: isVideoComplete ? start + videoDuration : end)
    }

    /// Writes the pending audio up to `videoEnd` (video ticks on the recording's timeline).
    /// Until the video is complete what lies past it is kept: the last pictures can be
    /// presented after ``end``, a later trigger can move the end, and the audio must run as
    /// long as the video, but no further. It is as much audio as the video encoder is behind.
    private func writePendingAudio(through videoEnd: Int64) throws {
        guard var audio else { return }
        let limit = audio.ticks(videoEnd)
        for chunk in pendingAudio { try write(chunk, through: limit, &audio) }
        pendingAudio.removeAll { $0.end <= limit || isVideoComplete }
        self.audio = audio
    }

    /// Writes the part of `chunk` between the audio written so far (or the clip's start) and
    /// `limit` (ticks of the sample rate), a gap before it filled with silence, so the clip's
    /// audio starts at its first picture and stays in step.
    private func write(_ chunk: EncodedPreRoll.AudioChunk, through limit: Int64, _ audio: inout Audio) throws {
        let written = audio.written ?? audio.start
        let from = max(chunk.time, written), to = min(chunk.end, limit)
        let silenceEnd = min(from, limit)
        guard to > from || silenceEnd > written else { return }
        try appendSilence(silenceEnd - written, audio)
        if to > from {
            let bytesPerFrame = audio.format.bytesPerFrame
            try chunk.bytes[(Int(from - chunk.time) * bytesPerFrame)..<(Int(to - chunk.time) * bytesPerFrame)].withUnsafeBytes {
                try appendPCM($0, audio)
            }
        }
        let end = max(to, silenceEnd)
        audio.written = end
        segment.audioEnd = end - audio.start
    }

    /// Appends `frames` frames of silence, a second at a time.
    private func appendSilence(_ frames: Int64, _ audio: Audio) throws {
        guard frames > 0 else { return }
        let second = [UInt8](repeating: 0, count: Int(min(frames, audio.rate)) * audio.format.bytesPerFrame)
        var left = frames
        while left > 0 {
            let count = min(left, audio.rate)
            let bytes = Int(count) * audio.format.bytesPerFrame
            try second.withUnsafeBytes { try appendPCM(UnsafeRawBufferPointer(rebasing: $0[0..<bytes]), audio) }
            left -= count
        }
    }

    /// Appends PCM frames to the audio track, through the clip's AAC encoder for an AAC track.
    /// The first frame appended is always the clip's audio start (time 0): the encoder gives
    /// its first access unit only after a few calls, and that unit starts there too.
    private func appendPCM(_ pcm: UnsafeRawBufferPointer, _ audio: Audio) throws {
        guard let track = segment.audioTrack else { return }
        if let aac = audio.aac {
            try aac.encode(pcm) { try segment.writer.appendAudioPacket($0, to: track, startTime: 0) }
        } else {
            try segment.writer.appendAudioFrames(pcm, to: track, startTime: 0)
        }
    }

    /// Finishes the movie: its last picture lasts one frame, and the audio ends with it.
    func finish() throws {
        defer { audio?.aac?.close() }
        try writePendingAudio(through: start + videoDuration)
        if let aac = audio?.aac, let track = segment.audioTrack {
            try aac.flush { try segment.writer.appendAudioPacket($0, to: track) }
        }
        segment.videoEnd = videoDuration
        segment.audioEnded = true
        if let audio { segment.audioLimit = audio.ticks(start + videoDuration) - audio.start }
        try segment.finish(audioRate: audio?.rate ?? 1, timescale: UInt32(audio?.videoTimescale ?? 1))
    }

    /// Closes the file without finishing it (the recording failed): repair finds its fragments.
    func abandon() {
        audio?.aac?.close()
    }
}
