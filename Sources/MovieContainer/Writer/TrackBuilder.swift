/// One track's growing sample tables and its pending chunk.
///
/// The tables hold their entries encoded as the movie atom stores them. Each keeps at most one
/// block in memory and moves full blocks to the writer's ``SampleTableSpill``, so memory does
/// not grow with the recording's length; finishing the movie copies the blocks back.
///
/// Its stored properties are `@exclusivity(unchecked)`: the writer is used from one thread at a
/// time and never passes one of them `inout` while another access to it is open, so the runtime
/// checks Swift adds to every class property access (a quarter of the muxing thread's user time,
/// `swift_beginAccess` and `AccessSet::insert` in `perf`) guard nothing here.
final class TrackBuilder {
    enum Media {
        case video(VideoTrackFormat)
        case audio(AudioTrackFormat)
        case metadata(MetadataTrackFormat)
    }

    let id: UInt32
    let media: Media
    let timescale: UInt32
    let chunkTicks: Int64
    /// The movie's fragment interval in this track's ticks (0 without fragments), worked out once
    /// rather than for every sample.
    @exclusivity(unchecked) var fragmentTicks: Int64 = 0
    let spill: SampleTableSpill

    // Sample tables.
    @exclusivity(unchecked) var sampleCount: UInt64 = 0
    /// `stsz`, for video and AAC; PCM frames all have the track's frame size.
    @exclusivity(unchecked) var sizes: SpilledTable
    @exclusivity(unchecked) var durations: RunLengthTable
    /// `ctts`, as bit patterns of the signed offsets.
    @exclusivity(unchecked) var compositionOffsets: RunLengthTable
    @exclusivity(unchecked) var hasCompositionOffsets = false
    @exclusivity(unchecked) var syncSamples: SpilledTable
    /// `sdtp`: each video sample's dependency byte, once one is known (a byte a sample, kept in
    /// memory: a megabyte for ten hours at 30 fps).
    @exclusivity(unchecked) var dependencies: [UInt8] = []
    /// Whether the track holds HEVC ('hvc1'), whose NAL unit headers read differently.
    let isHEVC: Bool
    @exclusivity(unchecked) var chunkOffsets: ChunkOffsetTable
    @exclusivity(unchecked) var samplesPerChunk: SampleToChunkTable

    // Timing, in the track's time scale, on the movie's timeline (0 = movie start).
    @exclusivity(unchecked) var firstDecodeTime: Int64?
    @exclusivity(unchecked) var lastDecodeTime: Int64 = 0
    @exclusivity(unchecked) var lastDelta: UInt32?
    @exclusivity(unchecked) var minPresentationTime: Int64 = .max
    @exclusivity(unchecked) var finalDuration: UInt32?
    /// For AAC: the access units' bytes and the largest, and the most bytes in one second of
    /// them, for the bit rates and buffer size `esds` declares.
    @exclusivity(unchecked) var packetStatistics = PacketStatistics()
    /// For AAC: where the presented audio ends on the movie timeline, once ``close(endTime:)``
    /// was given an end; without one it ends with the last access unit.
    @exclusivity(unchecked) var presentationEndLimit: Int64?

    // The chunk being collected (only its size when the writer omits media data).
    @exclusivity(unchecked) var chunk = PendingMedia()
    @exclusivity(unchecked) var chunkSampleCount: UInt32 = 0
    @exclusivity(unchecked) var chunkStartTime: Int64 = 0

    /// With fragments: the pending video samples (in decode order) or AAC access units, for the
    /// next `trun`.
    @exclusivity(unchecked) var fragmentSamples: [FragmentSample] = []

    struct FragmentSample {
        var size: UInt32
        var decodeTime: Int64
        var compositionOffset: Int32
        var isSync: Bool
    }

    init(id: UInt32, media: Media, chunkDuration: Duration, spill: SampleTableSpill) {
        self.id = id
        self.media = media
        self.spill = spill
        sizes = SpilledTable("track \(id) sample sizes ('stsz')", entrySize: 4)
        durations = RunLengthTable("track \(id) sample durations ('stts')")
        compositionOffsets = RunLengthTable("track \(id) composition offsets ('ctts')")
        syncSamples = SpilledTable("track \(id) sync samples ('stss')", entrySize: 4)
        chunkOffsets = ChunkOffsetTable(track: id)
        samplesPerChunk = SampleToChunkTable("track \(id) samples per chunk ('stsc')")
        switch media {
        case .video(let format): timescale = format.timescale
        case .audio(let format): timescale = format.sampleRate
        case .metadata(let format): timescale = format.timescale
        }
        if case .video(let format) = media { isHEVC = format.sampleEntry.format == "hvc1" || format.sampleEntry.format == "hev1" } else { isHEVC = false }
        chunkTicks = max(1, ticks(chunkDuration, timescale: timescale))
    }

    var isVideo: Bool { if case .video = media { true } else { false } }
    var isAudio: Bool { if case .audio = media { true } else { false } }
    var isMetadata: Bool { if case .metadata = media { true } else { false } }
    /// Whether each sample has its own decode time and duration, as video and timed metadata
    /// do; audio's follow from its frame count.
    var hasSampleTimes: Bool { !isAudio }

    /// The `mebx` description, for a timed metadata track.
    var metadataEntry: MetadataSampleEntry? {
        if case .metadata(let format) = media { return MetadataSampleEntry(keys: format.keys) }
        return nil
    }

    /// Bytes per PCM frame; 0 for video and AAC.
    var bytesPerFrame: Int {
        if case .audio(let format) = media, let pcm = format.pcm { return pcm.bytesPerFrame }
        return 0
    }

    /// The AAC format, for an AAC track.
    var aac: AACFormat? {
        if case .audio(let format) = media { return format.aac }
        return nil
    }

    /// Whether each sample has its own size in `stsz` and `trun`: video and AAC, not PCM.
    var hasSampleSizes: Bool { !isAudio || aac != nil }

    /// Ticks each sample lasts in an audio track: 1 for PCM, 1024 for AAC.
    var audioSampleDuration: Int64 { aac == nil ? 1 : Int64(AACFormat.framesPerPacket) }

    /// The pending samples' duration in ticks, for an audio track.
    var pendingAudioTicks: Int64 { Int64(chunkSampleCount) * audioSampleDuration }

    var sampleEntry: SampleDescriptionAtom.Entry {
        switch media {
        case .video(let format): format.sampleEntry.descriptionEntry
        case .audio(let format):
            switch format.encoding {
            case .pcm(let pcm): SoundSampleEntry(pcm: pcm).descriptionEntry
            case .aac(let aac): AACSampleEntry(aac: packetStatistics.describing(aac, packets: sampleCount)).descriptionEntry
            }
        case .metadata(let format): MetadataSampleEntry(keys: format.keys).descriptionEntry
        }
    }

    /// The time just after the last sample, in track ticks; for video the last sample's
    /// duration is a guess until ``close(endTime:)``.
    var decodeEnd: Int64 {
        guard let first = firstDecodeTime else { return 0 }
        if isMetadata { return lastDecodeTime + Int64(finalDuration ?? 1) }  // a value lasts until the next
        if hasSampleTimes { return lastDecodeTime + Int64(finalDuration ?? lastDelta ?? nominalFrameDuration) }
        return first + Int64(sampleCount) * audioSampleDuration
    }

    private var nominalFrameDuration: UInt32 {
        if case .video(let format) = media { return format.nominalFrameDuration }
        return 1
    }

    /// Records a video sample's table entries, with its `sdtp` byte (0: unknown). The caller
    /// has validated the timestamps.
    /// - Throws: ``MovieWriterError`` when a table cannot move a full block to scratch storage.
    func recordVideoSample(size: Int, decodeTime: Int64, presentationTime: Int64, isSync: Bool, dependency: UInt8 = 0) throws {
        if dependency != 0 || !dependencies.isEmpty {
            // Samples before the first known one stay unknown.
            if dependencies.count < sampleCount { dependencies.append(contentsOf: repeatElement(0, count: Int(sampleCount) - dependencies.count)) }
            dependencies.append(dependency)
        }
        if firstDecodeTime == nil {
            firstDecodeTime = decodeTime
        } else {
            let delta = UInt32(decodeTime - lastDecodeTime)
            try durations.append(delta, spill: spill)
            lastDelta = delta
        }
        lastDecodeTime = decodeTime
        let offset = Int32(presentationTime - decodeTime)
        try compositionOffsets.append(UInt32(bitPattern: offset), spill: spill)
        if offset != 0 { hasCompositionOffsets = true }
        sampleCount += 1
        if isSync { try syncSamples.append(UInt32(truncatingIfNeeded: sampleCount), spill: spill) }
        try sizes.append(UInt32(size), spill: spill)
        minPresentationTime = min(minPresentationTime, presentationTime)
    }

    /// Records `frames` PCM frames.
    func recordAudioFrames(_ frames: Int, startTime: Int64) throws {
        if firstDecodeTime == nil {
            firstDecodeTime = startTime
            minPresentationTime = startTime
        }
        try durations.append(1, count: UInt64(frames), spill: spill)
        sampleCount += UInt64(frames)
    }

    /// Records one AAC access unit of `size` bytes. The first one's `startTime` is where the
    /// first input frame sits on the movie timeline; the encoder's delay comes before it.
    func recordAudioPacket(size: Int, startTime: Int64) throws {
        if firstDecodeTime == nil {
            firstDecodeTime = startTime - Int64(aac?.primingFrames ?? 0)
            minPresentationTime = startTime
        }
        try durations.append(UInt32(AACFormat.framesPerPacket), spill: spill)
        try sizes.append(UInt32(size), spill: spill)
        packetStatistics.add(size, packetsPerSecond: (Int(timescale) + AACFormat.framesPerPacket - 1) / AACFormat.framesPerPacket)
        sampleCount += 1
    }

    /// Ends the track: fixes the last video sample's duration, or cuts audio that runs past
    /// `endTime` (PCM frames stay in the file, unreferenced; AAC ends its edit there).
    func close(endTime: Int64?) throws {
        if aac != nil {
            presentationEndLimit = endTime
            return
        }
        if isAudio {
            if let endTime, let first = firstDecodeTime { try truncateAudio(toFrames: UInt64(max(0, endTime - first))) }
            return
        }
        guard firstDecodeTime != nil, finalDuration == nil else { return }
        var last = isMetadata ? 1 : lastDelta ?? nominalFrameDuration
        if let endTime, endTime > lastDecodeTime, endTime - lastDecodeTime <= Int64(UInt32.max) {
            last = UInt32(endTime - lastDecodeTime)
        }
        finalDuration = last
        try durations.append(last, spill: spill)
    }

    /// Keeps only the first `frames` PCM frames in the tables. Call after the last chunk is
    /// written.
    ///
    /// Works back from the last chunk, dropping whole chunks and shortening the one the cut
    /// falls in, so only the few chunks past the cut are touched; the `stsc` runs stay maximal,
    /// as ``addChunk(at:sampleCount:)`` makes them.
    func truncateAudio(toFrames frames: UInt64) throws {
        guard sampleCount > frames, chunkSampleCount == 0 else { return }
        var excess = sampleCount - frames
        while excess > 0, let run = samplesPerChunk.open {
            let lastChunk = UInt32(chunkOffsets.count)
            let inChunk = UInt64(run.samplesPerChunk)
            if excess >= inChunk {
                try chunkOffsets.removeLast(spill: spill)
                excess -= inChunk
                if run.firstChunk == lastChunk { try samplesPerChunk.reopenPreviousRun(spill: spill) }
            } else {
                let kept = UInt32(inChunk - excess)
                excess = 0
                if run.firstChunk < lastChunk {
                    // The run now ends a chunk earlier; the last chunk starts a run of its own.
                    try samplesPerChunk.closeOpenRun(spill: spill)
                    samplesPerChunk.open = .init(firstChunk: lastChunk, samplesPerChunk: kept)
                } else if let previous = try samplesPerChunk.previousRun(spill: spill), previous.samplesPerChunk == kept {
                    try samplesPerChunk.reopenPreviousRun(spill: spill)
                } else {
                    samplesPerChunk.open!.samplesPerChunk = kept
                }
            }
        }
        durations = RunLengthTable(durations.closed.name)
        try durations.append(1, count: frames, spill: spill)
        sampleCount = frames
    }

    /// Records a chunk written at `offset` holding the pending samples.
    func recordChunk(at offset: UInt64) throws {
        try addChunk(at: offset, sampleCount: chunkSampleCount)
        chunk.removeAll()
        chunkSampleCount = 0
    }

    /// Records a chunk of `sampleCount` samples at `offset` in the tables only.
    func addChunk(at offset: UInt64, sampleCount: UInt32) throws {
        try chunkOffsets.append(offset, spill: spill)
        try samplesPerChunk.addChunk(UInt32(truncatingIfNeeded: chunkOffsets.count), sampleCount: sampleCount, spill: spill)
    }

    /// Removes the first `count` pending samples (and their bytes) once they are written.
    func consumePending(samples count: Int, bytes: Int) {
        chunk.removeFirst(bytes)
        chunkSampleCount -= UInt32(count)
        if hasSampleSizes { fragmentSamples.removeFirst(count) }
    }

    /// Where the track ends on the movie timeline, in track ticks: video ends with its last
    /// presented frame, audio and timed metadata with their last sample.
    var presentationEnd: Int64 {
        guard firstDecodeTime != nil else { return 0 }
        return isVideo ? minPresentationTime + Int64(mediaDuration) : decodeEnd
    }

    /// The media's total duration in track ticks.
    var mediaDuration: UInt64 {
        guard let first = firstDecodeTime else { return 0 }
        return UInt64(decodeEnd - first)
    }

    /// The edit list that places the media on the movie timeline: an empty edit for a late
    /// start, then the media from its first presented instant (which hides the B-frame
    /// delay and the AAC encoder's delay), cut at movie time 0 when the media starts earlier.
    /// AAC ends where ``close(endTime:)`` said, which hides the last access unit's padding.
    func edits(movieTimescale: UInt32) -> [EditListAtom.Entry] {
        guard let first = firstDecodeTime, sampleCount > 0 else { return [] }
        let presentationStart = minPresentationTime
        var presentationEnd = presentationStart + Int64(mediaDuration)
        if aac != nil {
            presentationEnd = first + Int64(mediaDuration)
            if let limit = presentationEndLimit { presentationEnd = min(presentationEnd, limit) }
        }
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

/// What an AAC track's `esds` declares about its access units, measured as they are appended.
struct PacketStatistics {
    private(set) var totalBytes: UInt64 = 0
    private(set) var largest = 0
    private var windowBytes = 0
    private var windowPackets = 0
    private(set) var busiestWindowBytes = 0

    /// Adds an access unit of `size` bytes; windows of `packetsPerSecond` access units measure
    /// the peak rate.
    mutating func add(_ size: Int, packetsPerSecond: Int) {
        totalBytes += UInt64(size)
        largest = max(largest, size)
        windowBytes += size
        windowPackets += 1
        busiestWindowBytes = max(busiestWindowBytes, windowBytes)
        if windowPackets >= packetsPerSecond {
            windowBytes = 0
            windowPackets = 0
        }
    }

    /// `format` with the measured average and peak bit rates and the largest access unit as its
    /// buffer size, once `packets` access units are in; as it was before any.
    func describing(_ format: AACFormat, packets: UInt64) -> AACFormat {
        guard packets > 0 else { return format }
        var measured = format
        let seconds = Double(packets) * Double(AACFormat.framesPerPacket) / Double(format.sampleRate)
        measured.averageBitRate = UInt32(clamping: Int((Double(totalBytes * 8) / seconds).rounded()))
        measured.maxBitRate = max(measured.averageBitRate, UInt32(clamping: busiestWindowBytes * 8))
        measured.bufferSize = UInt32(clamping: largest)
        return measured
    }
}
