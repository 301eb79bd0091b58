/// Builds a writer's movie atom (`moov`) from its tracks: `mvhd`, a `trak` per track, `mvex`
/// for the header of a fragmented file, and `meta` when the movie has metadata.
///
/// Every atom is written by its atom type. The sample tables' entries are not copied in: each
/// table is an external span of the result that its entries fill when it is stored
/// (``StreamedMovieAtom``), so a long recording's tables never sit in memory whole.
struct MovieAtomBuilder {
    typealias TableEntries = StreamedMovieAtom.TableEntries

    let configuration: MovieWriter.Configuration
    let tracks: [TrackBuilder]
    /// Where the tables' full blocks wait.
    let spill: SampleTableSpill

    /// Builds `moov` from the tracks' tables; for the header of a fragmented file, with `mvex`.
    /// - Throws: ``MovieWriterError`` when a track has more samples than `stsz` can count, or
    ///   ``MovieFormatError`` for an atom past 4 GiB.
    func movieAtom(fragmentHeader: Bool = false) throws -> StreamedMovieAtom {
        let movieTimescale = configuration.movieTimescale
        let time = configuration.creationTime
        let edits = tracks.map { track in
            fragmentHeader ? Self.headerEdits(of: track) : track.edits(movieTimescale: movieTimescale)
        }
        let trackDurations = edits.map { $0.reduce(UInt64(0)) { $0 + $1.segmentDuration } }
        let movieDuration = trackDurations.max() ?? 0
        var w = ByteWriter(capacity: 4096)
        var tables: [TableEntries] = []
        try w.writeAtom("moov") { w in
            try MovieHeaderAtom(creationTime: time, modificationTime: time, timescale: movieTimescale,
                                duration: movieDuration, nextTrackID: UInt32(tracks.count + 1)).write(to: &w)
            for (index, track) in tracks.enumerated() {
                try writeTrack(track, edits: edits[index], duration: trackDurations[index], to: &w, tables: &tables)
            }
            if fragmentHeader {
                try w.writeAtom("mvex") { w in
                    for track in tracks { try TrackExtendsAtom(trackID: track.id).write(to: &w) }
                }
            }
            if !configuration.metadata.isEmpty {
                try MetadataAtom(items: configuration.metadata).write(to: &w)
            }
            // Last in the header of a recording, its checksum patched in below: repair refuses
            // a header a power cut damaged instead of decoding with damaged parameter sets.
            if fragmentHeader && configuration.checksumsFragments {
                MediaChecksumAtom(checksum: 0, mediaLength: 0).write(to: &w)
            }
        }
        if fragmentHeader && configuration.checksumsFragments && tables.isEmpty {
            let atom = w.count - MediaChecksumAtom.size
            w.patch(CRC32C.checksum(Array(w.bytes[..<atom])), at: atom + MediaChecksumAtom.checksumPosition)
        }
        return StreamedMovieAtom(atom: w, tables: tables, duration: movieDuration)
    }

    /// The edit list of a track in the header of a fragmented file, before any sample: for AAC,
    /// one edit that starts the media after the encoder's delay and lasts as long as the
    /// fragments do (duration 0), which tells players and repair where the audio begins.
    private static func headerEdits(of track: TrackBuilder) -> [EditListAtom.Entry] {
        guard let aac = track.aac else { return [] }
        return [.init(segmentDuration: 0, mediaTime: Int64(aac.primingFrames))]
    }

    /// Writes `trak`: the track header, the edit list and the media.
    private func writeTrack(_ track: TrackBuilder, edits: [EditListAtom.Entry], duration: UInt64,
                            to w: inout ByteWriter, tables: inout [TableEntries]) throws {
        let time = configuration.creationTime
        try w.writeAtom("trak") { w in
            try trackHeader(track, duration: duration).write(to: &w)
            if !edits.isEmpty {
                try w.writeAtom("edts") { try EditListAtom(entries: edits).write(to: &$0) }
            }
            if case .metadata(let format) = track.media, let described = format.describedTrack {
                try ContentDescribesReferenceAtom(trackIDs: [described.rawValue]).write(to: &w)
            }
            try w.writeAtom("mdia") { w in
                try MediaHeaderAtom(creationTime: time, timescale: track.timescale, duration: track.mediaDuration).write(to: &w)
                try Self.handler(of: track).write(to: &w)
                try writeMediaInformation(track, to: &w, tables: &tables)
            }
        }
    }

    /// The `hdlr` of a track's media, named as Core Media names them.
    private static func handler(of track: TrackBuilder) -> HandlerAtom {
        switch track.media {
        case .video: HandlerAtom(componentType: "mhlr", componentSubtype: "vide", name: "Core Media Video")
        case .audio: HandlerAtom(componentType: "mhlr", componentSubtype: "soun", name: "Core Media Audio")
        case .metadata: HandlerAtom(componentType: "mhlr", componentSubtype: "meta", name: "Core Media Metadata")
        }
    }

    /// The `tkhd` of a track: a video track's size and orientation matrix, an audio track's
    /// full volume.
    private func trackHeader(_ track: TrackBuilder, duration: UInt64) -> TrackHeaderAtom {
        let time = configuration.creationTime
        switch track.media {
        case .video(let format):
            let width = format.sampleEntry.width, height = format.sampleEntry.height
            return TrackHeaderAtom(trackID: track.id, creationTime: time, duration: duration, volume: 0,
                                   matrix: format.orientation.matrix(width: Int32(width), height: Int32(height)),
                                   width: UInt32(width) << 16, height: UInt32(height) << 16)
        case .audio:
            return TrackHeaderAtom(trackID: track.id, creationTime: time, duration: duration, volume: 0x0100,
                                   matrix: .identity, width: 0, height: 0)
        case .metadata:
            return TrackHeaderAtom(trackID: track.id, creationTime: time, duration: duration, volume: 0,
                                   matrix: .identity, width: 0, height: 0)
        }
    }

    /// Writes `minf`: the media's header, the data handler and reference, and the sample table.
    private func writeMediaInformation(_ track: TrackBuilder, to w: inout ByteWriter, tables: inout [TableEntries]) throws {
        try w.writeAtom("minf") { w in
            switch track.media {
            case .video: try VideoMediaHeaderAtom().write(to: &w)
            case .audio: try SoundMediaHeaderAtom().write(to: &w)
            case .metadata: try BaseMediaHeaderAtom().write(to: &w)
            }
            try HandlerAtom(componentType: "dhlr", componentSubtype: "url ", name: "Core Media Data Handler").write(to: &w)
            try w.writeAtom("dinf") { try DataReferenceAtom().write(to: &$0) }
            try writeSampleTable(track, to: &w, tables: &tables)
        }
    }

    /// Writes `stbl`: the sample description, then the tables; for AAC, the `roll` group that
    /// says each access unit needs the one before it. Each table atom is written by its
    /// atom type (``TimeToSampleAtom``, ``SyncSampleAtom``, ``CompositionOffsetAtom``,
    /// ``SampleToChunkAtom``, ``SampleSizeAtom``, ``ChunkOffsetAtom`` or
    /// ``ChunkOffset64Atom``); its entries, already encoded, are an external span that `tables`
    /// fills.
    private func writeSampleTable(_ track: TrackBuilder, to w: inout ByteWriter, tables: inout [TableEntries]) throws {
        guard track.sampleCount <= UInt64(UInt32.max) else {
            throw MovieWriterError(.invalidState,
                "writing the sample table of track \(track.id): \(track.sampleCount) samples exceed the 32-bit count of 'stsz'; split the recording")
        }
        try w.writeAtom("stbl") { w in
            try SampleDescriptionAtom(entries: [track.sampleEntry]).write(to: &w)
            try writeTimeTables(track, to: &w, tables: &tables)
            try writeStorageTables(track, to: &w, tables: &tables)
            if track.aac != nil, track.sampleCount > 0 {
                try SampleGroupDescriptionAtom(rollDistance: -1).write(to: &w)
                try SampleToGroupAtom(sampleCount: UInt32(track.sampleCount)).write(to: &w)
            }
        }
    }

    /// Writes the tables of the samples' times: `stts`, `stss` (unless every sample is a sync
    /// sample) and `ctts` (when presentation differs from decode order); then `sdtp`, which
    /// pictures are independent and which disposable, as Apple writes it.
    private func writeTimeTables(_ track: TrackBuilder, to w: inout ByteWriter, tables: inout [TableEntries]) throws {
        let spill = self.spill
        let durations = track.durations
        try TimeToSampleAtom.write(entryCount: durations.entryCount, to: &w) {
            Self.reserve(durations.byteCount, in: &$0, tables: &tables) { try durations.write(to: $0, spill: spill) }
        }
        if track.isVideo, UInt64(track.syncSamples.count) < track.sampleCount {
            let syncSamples = track.syncSamples
            try SyncSampleAtom.write(entryCount: syncSamples.count, to: &w) {
                Self.reserve(syncSamples.byteCount, in: &$0, tables: &tables) { try syncSamples.write(to: $0, spill: spill) }
            }
        }
        if track.hasCompositionOffsets {
            let offsets = track.compositionOffsets
            try CompositionOffsetAtom.write(entryCount: offsets.entryCount, to: &w) {
                Self.reserve(offsets.byteCount, in: &$0, tables: &tables) { try offsets.write(to: $0, spill: spill) }
            }
        }
        if track.isVideo, !track.dependencies.isEmpty {
            // Samples after the last known one (none here: the writer knows every sample's) are unknown.
            var flags = track.dependencies
            if flags.count < track.sampleCount { flags.append(contentsOf: repeatElement(0, count: Int(track.sampleCount) - flags.count)) }
            try SampleDependencyTypeAtom(flags: flags).write(to: &w)
        }
    }

    /// Writes the tables of where the samples are: `stsc`, `stsz` (a constant size for PCM) and
    /// `stco`, or `co64` once an offset passes 2^32 − 1.
    private func writeStorageTables(_ track: TrackBuilder, to w: inout ByteWriter, tables: inout [TableEntries]) throws {
        let spill = self.spill
        let samplesPerChunk = track.samplesPerChunk
        try SampleToChunkAtom.write(entryCount: samplesPerChunk.entryCount, to: &w) {
            Self.reserve(samplesPerChunk.byteCount, in: &$0, tables: &tables) { try samplesPerChunk.write(to: $0, spill: spill) }
        }
        if track.hasSampleSizes {
            let sizes = track.sizes
            try SampleSizeAtom.write(sampleCount: UInt32(sizes.count), to: &w) {
                Self.reserve(sizes.byteCount, in: &$0, tables: &tables) { try sizes.write(to: $0, spill: spill) }
            }
        } else {
            try SampleSizeAtom(constantSize: UInt32(track.bytesPerFrame), sampleCount: UInt32(track.sampleCount)).write(to: &w)
        }
        let chunkOffsets = track.chunkOffsets
        if chunkOffsets.needsLargeOffsets {
            let offsets = chunkOffsets.offsets64
            try ChunkOffset64Atom.write(entryCount: chunkOffsets.count, to: &w) {
                Self.reserve(offsets.byteCount, in: &$0, tables: &tables) { try offsets.write(to: $0, spill: spill) }
            }
        } else {
            let offsets = chunkOffsets.offsets32
            try ChunkOffsetAtom.write(entryCount: chunkOffsets.count, to: &w) {
                Self.reserve(offsets.byteCount, in: &$0, tables: &tables) { try offsets.write(to: $0, spill: spill) }
            }
        }
    }

    /// Reserves `byteCount` bytes of a table's entries in `w`, which `entries` copies in when the
    /// movie atom is stored.
    private static func reserve(_ byteCount: Int, in w: inout ByteWriter, tables: inout [TableEntries],
                                entries: @escaping TableEntries) {
        w.reserveExternal(byteCount, source: tables.count)
        if byteCount > 0 { tables.append(entries) }
    }
}
