/// Lays out a fragmented movie's fragments from its tracks' pending samples: a `moof` with one
/// `traf` per track (PCM described by `tfhd` defaults, not per frame), then the header of the
/// `mdat` that holds their media.
///
/// It keeps what carries from one fragment to the next: the sequence number and the shift that
/// keeps decode times unsigned.
struct FragmentBuilder {
    /// The sequence number of the last fragment laid out; 0 before the first.
    private(set) var sequenceNumber: UInt32 = 0
    /// Added to every track's decode times (`tfdt` is unsigned), as (ticks, timescale): the
    /// B-frame delay of a video track whose first decode time is negative. Set at the first
    /// fragment.
    private var decodeTimeShift: (value: Int64, timescale: UInt32)?
    /// Whether each `moof` carries a ``MediaChecksumAtom`` of its media.
    var checksumsMedia = false

    /// Lays out the tracks' pending samples as the next fragment, or returns `nil` when no track
    /// has samples that can go out.
    /// - Parameter nextDecodeTimes: for video tracks, the decode time of the sample after the
    ///   pending ones, which fixes the last one's duration; a track without one keeps its last
    ///   sample for the next fragment unless `final`.
    /// - Throws: ``MovieWriterError`` when the media does not fit one fragment.
    mutating func makeFragment(of tracks: [TrackBuilder], nextDecodeTimes: [UInt32: Int64], final: Bool) throws -> MovieFragment? {
        let shift = shift(for: tracks)
        var parts: [TrackFragment] = []
        for track in tracks where track.chunkSampleCount > 0 {
            guard let first = track.firstDecodeTime else { continue }
            let trackShift = rescale(shift.value, from: shift.timescale, to: track.timescale)
            if track.aac != nil {
                parts.append(Self.packetPart(of: track, firstDecodeTime: first, shift: trackShift))
            } else if track.isMetadata {
                let end = final ? nil : Self.fragmentEnd(of: tracks, nextDecodeTimes: nextDecodeTimes, in: track.timescale)
                parts.append(Self.metadataPart(of: track, fragmentEnd: end, shift: trackShift))
            } else if track.isAudio {
                parts.append(Self.audioPart(of: track, firstDecodeTime: first, shift: trackShift))
            } else if let part = Self.videoPart(of: track, nextDecodeTime: nextDecodeTimes[track.id], final: final, shift: trackShift) {
                parts.append(part)
            }
        }
        guard !parts.isEmpty else { return nil }
        sequenceNumber += 1
        return try layOut(parts)
    }

    /// The shift of every track's decode times: the video's B-frame delay (a negative first decode
    /// time), in seconds, so relative timing survives in a crash-cut file. Worked out at the
    /// first fragment and kept. An AAC track counts from its first input frame, since its runs
    /// add the encoder's delay back (``packetPart(of:firstDecodeTime:shift:)``).
    private mutating func shift(for tracks: [TrackBuilder]) -> (value: Int64, timescale: UInt32) {
        if let decodeTimeShift { return decodeTimeShift }
        let delays = tracks.compactMap { t -> (Int64, UInt32)? in
            guard let decodeStart = t.firstDecodeTime else { return nil }
            let first = t.aac == nil ? decodeStart : t.minPresentationTime
            guard first < 0 else { return nil }
            return (-first, t.timescale)
        }
        let shift = delays.max { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) } ?? (0, 1)
        decodeTimeShift = shift
        return shift
    }

    /// A video track's pending samples that can go out, each with its own duration, size, flags
    /// and composition offset; `nil` when there are none.
    private static func videoPart(of track: TrackBuilder, nextDecodeTime next: Int64?, final: Bool, shift: Int64) -> TrackFragment? {
        let pending = track.fragmentSamples
        let count = next == nil && !final ? pending.count - 1 : pending.count
        guard count > 0 else { return nil }
        let fields = TrackRunAtom.durationPresent | TrackRunAtom.sizePresent | TrackRunAtom.flagsPresent
            | (track.hasCompositionOffsets ? TrackRunAtom.compositionOffsetPresent : 0)
        let samples = runSamples(of: track, count: count, nextDecodeTime: next)
        return TrackFragment(track: track, sampleCount: count, byteCount: pending.prefix(count).reduce(0) { $0 + Int($1.size) },
                             header: TrackFragmentHeaderAtom(trackID: track.id),
                             baseMediaDecodeTime: UInt64(max(0, pending[0].decodeTime + shift)),
                             run: TrackRunAtom(dataOffset: 0, sampleCount: UInt32(count), sampleFields: fields, samples: samples))
    }

    /// The `trun` entries of a video track's first `count` pending samples. A sample's duration
    /// runs to the next sample's decode time; the last pending one's to `next`, or, at the end
    /// of the movie, the track's final duration.
    private static func runSamples(of track: TrackBuilder, count: Int, nextDecodeTime next: Int64?) -> [TrackRunAtom.Sample] {
        let pending = track.fragmentSamples
        var samples: [TrackRunAtom.Sample] = []
        samples.reserveCapacity(count)
        for i in 0..<count {
            let duration: UInt32
            if i + 1 < pending.count {
                duration = UInt32(pending[i + 1].decodeTime - pending[i].decodeTime)
            } else if let next {
                duration = UInt32(next - pending[i].decodeTime)
            } else {
                duration = track.finalDuration ?? track.lastDelta ?? 1
            }
            samples.append(.init(duration: duration, size: pending[i].size,
                                 flags: pending[i].isSync ? TrackRunAtom.syncSampleFlags : TrackRunAtom.nonSyncSampleFlags,
                                 compositionOffset: pending[i].compositionOffset))
        }
        return samples
    }

    /// Where the fragment's media ends on the movie timeline, in ticks of `timescale`: the
    /// latest end among the other tracks' pending samples.
    private static func fragmentEnd(of tracks: [TrackBuilder], nextDecodeTimes: [UInt32: Int64], in timescale: UInt32) -> Int64 {
        tracks.filter { !$0.isMetadata }.map { track in
            rescale(nextDecodeTimes[track.id] ?? track.decodeEnd, from: track.timescale, to: timescale)
        }.max() ?? 0
    }

    /// A timed metadata track's pending samples, all of them, so the values in force reach the
    /// disk with the fragment. The last one's duration runs to the fragment's end (or, at the
    /// end of the movie, the track's end); a later sample's `tfdt` places it after any gap,
    /// and the movie atom at the end has each sample last until the next.
    private static func metadataPart(of track: TrackBuilder, fragmentEnd: Int64?, shift: Int64) -> TrackFragment {
        let pending = track.fragmentSamples
        var samples: [TrackRunAtom.Sample] = []
        for (i, sample) in pending.enumerated() {
            let end = i + 1 < pending.count ? pending[i + 1].decodeTime
                : fragmentEnd ?? sample.decodeTime + Int64(track.finalDuration ?? 1)
            samples.append(.init(duration: UInt32(clamping: max(1, end - sample.decodeTime)), size: sample.size,
                                 flags: TrackRunAtom.syncSampleFlags, compositionOffset: 0))
        }
        let fields = TrackRunAtom.durationPresent | TrackRunAtom.sizePresent | TrackRunAtom.flagsPresent
        return TrackFragment(track: track, sampleCount: pending.count, byteCount: pending.reduce(0) { $0 + Int($1.size) },
                             header: TrackFragmentHeaderAtom(trackID: track.id),
                             baseMediaDecodeTime: UInt64(max(0, pending[0].decodeTime + shift)),
                             run: TrackRunAtom(dataOffset: 0, sampleCount: UInt32(pending.count), sampleFields: fields, samples: samples))
    }

    /// An audio track's pending PCM frames, described by `tfhd` defaults: one frame per sample,
    /// duration 1, every frame a sync sample.
    private static func audioPart(of track: TrackBuilder, firstDecodeTime first: Int64, shift: Int64) -> TrackFragment {
        let count = Int(track.chunkSampleCount)
        let written = Int64(track.sampleCount) - Int64(count)
        let frameBytes = track.bytesPerFrame
        return TrackFragment(track: track, sampleCount: count, byteCount: count * frameBytes,
                             header: TrackFragmentHeaderAtom(trackID: track.id, defaultSampleDuration: 1,
                                                             defaultSampleSize: UInt32(frameBytes),
                                                             defaultSampleFlags: TrackRunAtom.syncSampleFlags),
                             baseMediaDecodeTime: UInt64(max(0, first + written + shift)),
                             run: TrackRunAtom(dataOffset: 0, sampleCount: UInt32(count), sampleFields: 0, samples: []))
    }

    /// An AAC track's pending access units: each with its size in the `trun`, the duration (1024)
    /// and sync flags from `tfhd` defaults.
    ///
    /// The decode time is counted from where the first input frame sits (the access units'
    /// decode times plus the encoder's delay), so it is never negative and the header's edit
    /// (media time = the delay) starts the audio at the first input frame; repair reads the
    /// start back the same way.
    private static func packetPart(of track: TrackBuilder, firstDecodeTime first: Int64, shift: Int64) -> TrackFragment {
        let count = Int(track.chunkSampleCount)
        let written = (Int64(track.sampleCount) - Int64(count)) * track.audioSampleDuration
        let priming = Int64(track.aac?.primingFrames ?? 0)
        let samples = track.fragmentSamples.prefix(count).map { TrackRunAtom.Sample(size: $0.size) }
        return TrackFragment(track: track, sampleCount: count, byteCount: samples.reduce(0) { $0 + Int($1.size ?? 0) },
                             header: TrackFragmentHeaderAtom(trackID: track.id, defaultSampleDuration: UInt32(track.audioSampleDuration),
                                                             defaultSampleFlags: TrackRunAtom.syncSampleFlags),
                             baseMediaDecodeTime: UInt64(max(0, first + priming + written + shift)),
                             run: TrackRunAtom(dataOffset: 0, sampleCount: UInt32(count), sampleFields: TrackRunAtom.sizePresent,
                                               samples: Array(samples)))
    }

    /// Writes the `moof` once, then patches each run's data offset (from the `moof`'s start to its
    /// track's media in the `mdat` that follows) and appends the `mdat` header.
    private func layOut(_ parts: [TrackFragment]) throws -> MovieFragment {
        let payload = parts.reduce(0) { $0 + $1.byteCount }
        let mdatSize = 8 + payload
        var w = ByteWriter(capacity: 64 + parts.reduce(0) { $0 + 64 + 16 * $1.sampleCount })
        var offsetPositions: [Int] = []
        try w.writeAtom("moof") { w in
            try MovieFragmentHeaderAtom(sequenceNumber: sequenceNumber).write(to: &w)
            for part in parts { offsetPositions.append(try part.write(to: &w)) }
            // Last in the moof, its checksum patched in once the rest of the moof is final.
            if checksumsMedia { MediaChecksumAtom(checksum: 0, mediaLength: UInt64(payload)).write(to: &w) }
        }
        let moofSize = w.count
        // The mdat's size is 32 bits, and a run's data offset a signed 32-bit count of bytes from
        // the moof's start.
        func doesNotFit() -> MovieWriterError {
            MovieWriterError(.invalidSample,
                "writing a fragment: \(payload) bytes of media do not fit one fragment; use a shorter fragment interval")
        }
        guard mdatSize <= Int(UInt32.max) else { throw doesNotFit() }
        var dataOffsets: [Int] = []
        var position = moofSize + 8
        for (part, at) in zip(parts, offsetPositions) {
            guard position <= Int(Int32.max) else { throw doesNotFit() }
            dataOffsets.append(position)
            w.patch(UInt32(position), at: at)
            position += part.byteCount
        }
        if checksumsMedia {
            let atom = moofSize - MediaChecksumAtom.size
            w.patch(Self.checksum(ofHeader: w.bytes[..<atom], parts: parts), at: atom + MediaChecksumAtom.checksumPosition)
        }
        w.write(UInt32(mdatSize))
        w.write("mdat" as FourCC)
        return MovieFragment(sequenceNumber: sequenceNumber, headers: w.bytes, moofSize: moofSize, parts: parts,
                             dataOffsets: dataOffsets)
    }
}

extension FragmentBuilder {
    /// The checksum of a fragment: its `moof` up to the checksum atom, then the media `parts`
    /// give, in the order the `mdat` holds it. A header or media page a power cut lost or left
    /// zero-filled changes it.
    static func checksum(ofHeader header: ArraySlice<UInt8>, parts: [TrackFragment]) -> UInt32 {
        var crc = CRC32C()
        header.withUnsafeBytes { crc.update($0) }
        for part in parts {
            part.track.chunk.forEachBuffer(prefix: part.byteCount) { buffer, _ in crc.update(buffer) }
        }
        return crc.value
    }
}

/// One track's part of a fragment: its first ``sampleCount`` pending samples, described by a
/// `traf`.
struct TrackFragment {
    let track: TrackBuilder
    let sampleCount: Int
    /// The bytes of the samples' media.
    let byteCount: Int
    let header: TrackFragmentHeaderAtom
    let baseMediaDecodeTime: UInt64
    /// The run, with a data offset of 0 until the fragment is laid out.
    let run: TrackRunAtom

    /// Writes the `traf` and returns where its run's data offset lies in `w`.
    func write(to w: inout ByteWriter) throws -> Int {
        var offsetPosition = 0
        try w.writeAtom("traf") { w in
            try header.write(to: &w)
            try TrackFragmentDecodeTimeAtom(baseMediaDecodeTime: baseMediaDecodeTime).write(to: &w)
            offsetPosition = w.count + TrackRunAtom.dataOffsetPosition
            try run.write(to: &w)
        }
        return offsetPosition
    }
}

/// A fragment ready to store: its `moof` and `mdat` header, and the media each track gives.
struct MovieFragment {
    let sequenceNumber: UInt32
    /// The `moof`, its runs' data offsets in place, followed by the `mdat` header.
    let headers: [UInt8]
    /// The size of the `moof`: where the `mdat` header starts in ``headers``.
    let moofSize: Int
    let parts: [TrackFragment]
    /// Where each part's media starts, in bytes from the start of the fragment.
    let dataOffsets: [Int]

    /// The size of the whole fragment, media included.
    var size: Int { headers.count + parts.reduce(0) { $0 + $1.byteCount } }
}
