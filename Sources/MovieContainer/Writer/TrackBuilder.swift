/// Runs of equal values: the shape of `stts`, `ctts` and `stsc`, kept compact while a long
/// recording grows.
struct RunLengthTable<Value: Equatable> {
    var runs: [(count: UInt32, value: Value)] = []

    mutating func append(_ value: Value, count: UInt64 = 1) {
        var left = count
        while left > 0 {
            if let last = runs.last, last.value == value, last.count < UInt32.max {
                let take = min(left, UInt64(UInt32.max - last.count))
                runs[runs.count - 1].count += UInt32(take)
                left -= take
            } else {
                let take = min(left, UInt64(UInt32.max))
                runs.append((UInt32(take), value))
                left -= take
            }
        }
    }
}

/// One track's growing sample tables and its pending chunk.
///
/// Memory grows by four bytes per video sample (its size) plus one entry per run of equal
/// durations or offsets and eight bytes per chunk; PCM audio adds only per-chunk entries.
final class TrackBuilder {
    enum Media {
        case video(VideoTrackFormat)
        case audio(AudioTrackFormat)
    }

    let id: UInt32
    let media: Media
    let timescale: UInt32
    let chunkTicks: Int64

    // Sample tables.
    var sampleCount: UInt64 = 0
    var sizes: [UInt32] = []
    var durations = RunLengthTable<UInt32>()
    var compositionOffsets = RunLengthTable<Int32>()
    var hasCompositionOffsets = false
    var syncSamples: [UInt32] = []
    var chunkOffsets: [UInt64] = []
    var samplesPerChunk: [SampleToChunkAtom.Entry] = []

    // Timing, in the track's time scale, on the movie's timeline (0 = movie start).
    var firstDecodeTime: Int64?
    var lastDecodeTime: Int64 = 0
    var lastDelta: UInt32?
    var minPresentationTime: Int64 = .max
    var finalDuration: UInt32?

    // The chunk being collected.
    var chunk = PendingMedia()
    var chunkSampleCount: UInt32 = 0
    var chunkStartTime: Int64 = 0

    /// With fragments: the pending video samples, in decode order, for the next `trun`.
    var fragmentSamples: [FragmentSample] = []

    struct FragmentSample {
        var size: UInt32
        var decodeTime: Int64
        var compositionOffset: Int32
        var isSync: Bool
    }

    init(id: UInt32, media: Media, chunkDuration: Duration) {
        self.id = id
        self.media = media
        switch media {
        case .video(let format): timescale = format.timescale
        case .audio(let format): timescale = format.pcm.sampleRate
        }
        chunkTicks = max(1, ticks(chunkDuration, timescale: timescale))
    }

    var isVideo: Bool { if case .video = media { true } else { false } }

    var bytesPerFrame: Int {
        if case .audio(let format) = media { return format.pcm.bytesPerFrame }
        return 0
    }

    var sampleEntry: SampleDescriptionAtom.Entry {
        switch media {
        case .video(let format): format.sampleEntry.descriptionEntry
        case .audio(let format): SoundSampleEntry(pcm: format.pcm).descriptionEntry
        }
    }

    /// The time just after the last sample, in track ticks; for video the last sample's
    /// duration is a guess until ``close(endTime:)``.
    var decodeEnd: Int64 {
        guard let first = firstDecodeTime else { return 0 }
        if isVideo { return lastDecodeTime + Int64(finalDuration ?? lastDelta ?? nominalFrameDuration) }
        return first + Int64(sampleCount)
    }

    private var nominalFrameDuration: UInt32 {
        if case .video(let format) = media { return format.nominalFrameDuration }
        return 1
    }

    /// Records a video sample's table entries. The caller has validated the timestamps.
    func recordVideoSample(size: Int, decodeTime: Int64, presentationTime: Int64, isSync: Bool) {
        if firstDecodeTime == nil {
            firstDecodeTime = decodeTime
        } else {
            let delta = UInt32(decodeTime - lastDecodeTime)
            durations.append(delta)
            lastDelta = delta
        }
        lastDecodeTime = decodeTime
        let offset = Int32(presentationTime - decodeTime)
        compositionOffsets.append(offset)
        if offset != 0 { hasCompositionOffsets = true }
        sampleCount += 1
        if isSync { syncSamples.append(UInt32(sampleCount)) }
        sizes.append(UInt32(size))
        minPresentationTime = min(minPresentationTime, presentationTime)
    }

    /// Records `frames` PCM frames.
    func recordAudioFrames(_ frames: Int, startTime: Int64) {
        if firstDecodeTime == nil {
            firstDecodeTime = startTime
            minPresentationTime = startTime
        }
        durations.append(1, count: UInt64(frames))
        sampleCount += UInt64(frames)
    }

    /// Ends the track: fixes the last video sample's duration, or cuts audio that runs past
    /// `endTime` (the frames stay in the file, unreferenced).
    func close(endTime: Int64?) {
        if !isVideo {
            if let endTime, let first = firstDecodeTime { truncateAudio(toFrames: UInt64(max(0, endTime - first))) }
            return
        }
        guard firstDecodeTime != nil, finalDuration == nil else { return }
        var last = lastDelta ?? nominalFrameDuration
        if let endTime, endTime > lastDecodeTime, endTime - lastDecodeTime <= Int64(UInt32.max) {
            last = UInt32(endTime - lastDecodeTime)
        }
        finalDuration = last
        durations.append(last)
    }

    /// Keeps only the first `frames` PCM frames in the tables. Call after the last chunk is
    /// written.
    func truncateAudio(toFrames frames: UInt64) {
        guard sampleCount > frames, chunkSampleCount == 0 else { return }
        // Samples per chunk, expanded from the runs (chunks are few: two a second).
        var perChunk: [UInt32] = []
        perChunk.reserveCapacity(chunkOffsets.count)
        for (i, entry) in samplesPerChunk.enumerated() {
            let next = i + 1 < samplesPerChunk.count ? Int(samplesPerChunk[i + 1].firstChunk) : chunkOffsets.count + 1
            perChunk.append(contentsOf: repeatElement(entry.samplesPerChunk, count: next - Int(entry.firstChunk)))
        }
        var kept: [UInt32] = []
        var remaining = frames
        for count in perChunk where remaining > 0 {
            let take = UInt32(min(UInt64(count), remaining))
            kept.append(take)
            remaining -= UInt64(take)
        }
        chunkOffsets.removeLast(chunkOffsets.count - kept.count)
        samplesPerChunk = []
        for (i, count) in kept.enumerated() where samplesPerChunk.last?.samplesPerChunk != count {
            samplesPerChunk.append(.init(firstChunk: UInt32(i + 1), samplesPerChunk: count))
        }
        durations = RunLengthTable()
        durations.append(1, count: frames)
        sampleCount = frames
    }

    /// Records a chunk written at `offset` holding the pending samples.
    func recordChunk(at offset: UInt64) {
        addChunk(at: offset, sampleCount: chunkSampleCount)
        chunk.removeAll()
        chunkSampleCount = 0
    }

    /// Records a chunk of `sampleCount` samples at `offset` in the tables only.
    func addChunk(at offset: UInt64, sampleCount: UInt32) {
        chunkOffsets.append(offset)
        if samplesPerChunk.last?.samplesPerChunk != sampleCount {
            samplesPerChunk.append(.init(firstChunk: UInt32(chunkOffsets.count), samplesPerChunk: sampleCount))
        }
    }

    /// Removes the first `count` pending samples (and their bytes) once they are written.
    func consumePending(samples count: Int, bytes: Int) {
        chunk.removeFirst(bytes)
        chunkSampleCount -= UInt32(count)
        if isVideo { fragmentSamples.removeFirst(count) }
    }

    /// The media's total duration in track ticks.
    var mediaDuration: UInt64 {
        guard let first = firstDecodeTime else { return 0 }
        return UInt64(decodeEnd - first)
    }

    /// The edit list that places the media on the movie timeline: an empty edit for a late
    /// start, then the media from its first presented instant (which hides the B-frame
    /// delay), cut at movie time 0 when the media starts earlier.
    func edits(movieTimescale: UInt32) -> [EditListAtom.Entry] {
        guard let first = firstDecodeTime, sampleCount > 0 else { return [] }
        let presentationStart = minPresentationTime
        let presentationEnd = presentationStart + Int64(mediaDuration)
        var edits: [EditListAtom.Entry] = []
        let visibleStart = max(presentationStart, 0)
        let gap = rescale(visibleStart, from: timescale, to: movieTimescale)
        if gap > 0 {
            edits.append(.init(segmentDuration: UInt64(gap), mediaTime: -1))
        }
        guard presentationEnd > visibleStart else { return edits }
        let duration = rescale(presentationEnd - visibleStart, from: timescale, to: movieTimescale)
        edits.append(.init(segmentDuration: UInt64(duration), mediaTime: visibleStart - first))
        return edits
    }
}

/// Converts a `Duration` to ticks of `timescale`, rounding down.
func ticks(_ duration: Duration, timescale: UInt32) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let nanoseconds = attoseconds / 1_000_000_000
    return seconds * Int64(timescale) + nanoseconds * Int64(timescale) / 1_000_000_000
}

/// Converts `value` ticks of one time scale to another, rounding to nearest.
func rescale(_ value: Int64, from: UInt32, to: UInt32) -> Int64 {
    if from == to { return value }
    let product = value.multipliedFullWidth(by: Int64(to))
    let divisor = Int64(from)
    let (q, r) = divisor.dividingFullWidth(product)
    return 2 * r.magnitude >= divisor.magnitude ? q + (value < 0 ? -1 : 1) : q
}
