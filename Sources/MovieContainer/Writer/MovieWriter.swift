/// An object that writes a QuickTime movie as samples arrive: media first, in interleaved
/// chunks, and the movie atom (`moov`) at the end.
///
/// The file starts `ftyp` (`qt  `), `wide`, `mdat`. Each track's samples collect into chunks of
/// about ``Configuration/chunkDuration`` that are written to the sink as they fill, so memory
/// holds at most one chunk per track plus one block of each sample table: entries that are
/// final move to the sink's scratch storage (``MovieByteSink/makeScratchStorage()``), so
/// memory does not grow with the length of the recording. ``finish(endTimes:)``
/// writes the remaining chunks, sets the `mdat` size (widening its header to 64 bits over the
/// `wide` atom past 4 GiB) and appends `moov` (with `meta` when ``Configuration/metadata`` has
/// items), choosing `co64` and version-1 headers only when a value no longer fits 32 bits.
///
/// Timestamps are integer ticks of each track's time scale, with 0 the start of the movie. The
/// writer is not thread-safe: drive it from one thread (the recorder's writing thread).
public final class MovieWriter {
    /// Where the writer is in the movie's life.
    enum State {
        case configuring
        case writing
        case finished
        /// A write or a table step failed: the movie cannot continue.
        case failed
    }

    /// The bytes each sample table keeps in memory before moving them to scratch storage.
    static let defaultTableBlockSize = 1 << 16

    // The mutable state is `@exclusivity(unchecked)`, for the reason given at `TrackBuilder`.
    /// The settings the writer was created with, and any metadata added since
    /// (``addMetadataItem(_:)``).
    public private(set) var configuration: Configuration
    /// Where the movie's bytes go.
    let output: MovieSinkWriter
    let spill: SampleTableSpill
    @exclusivity(unchecked) var tracks: [TrackBuilder] = []
    @exclusivity(unchecked) var state = State.configuring
    @exclusivity(unchecked) var fileOffset: UInt64 = 0
    /// With fragments: the sequence number and decode-time shift that carry from one fragment to
    /// the next.
    @exclusivity(unchecked) var fragments = FragmentBuilder()
    /// The track whose time decides when a fragment is due: the first video track, else the
    /// first track (set as tracks are added).
    @exclusivity(unchecked) var drivingTrack: TrackBuilder?
    /// The decode time of the driving track's first sample in the pending fragment.
    @exclusivity(unchecked) var fragmentStart: Int64?
    var isFragmented: Bool { configuration.fragmentInterval != nil }

    /// Whether sample bytes are left out of the file (a hole in a sparse file) while every
    /// table, fragment header and the movie atom come out as if they were written: the
    /// benchmarks' way of recording hours of media without writing gigabytes.
    @_spi(Benchmarks) public var omitsMediaData: Bool {
        get { output.omitsMediaData }
        set { output.omitsMediaData = newValue }
    }

    /// Creates a writer that writes through `sink`.
    public convenience init(sink: any MovieByteSink, configuration: Configuration) {
        self.init(sink: sink, configuration: configuration, tableBlockSize: Self.defaultTableBlockSize)
    }

    /// Creates a writer whose sample tables keep `tableBlockSize` bytes each in memory.
    init(sink: any MovieByteSink, configuration: Configuration, tableBlockSize: Int) {
        self.configuration = configuration
        output = MovieSinkWriter(sink: sink, coalescesMediaWrites: configuration.coalescesMediaWrites)
        spill = SampleTableSpill(sink: sink, blockSize: tableBlockSize)
        fragments.checksumsMedia = configuration.checksumsFragments
    }

    /// Adds a movie metadata item, written with the movie atom at ``finish(endTimes:)``: a value
    /// known only while recording, such as the location of the first GPS fix. A fragmented
    /// file's header already written does not get it, so a repaired movie lacks it.
    public func addMetadataItem(_ item: MetadataItem) {
        configuration.metadata.append(item)
    }

    /// The number of bytes written to the sink so far, pending chunks excluded.
    public var bytesWritten: UInt64 { fileOffset }

    /// How much media has been appended, as the longest track's time in movie ticks.
    public var recordedDuration: UInt64 {
        tracks.map { UInt64(max(0, rescale($0.decodeEnd, from: $0.timescale, to: configuration.movieTimescale))) }.max() ?? 0
    }

    /// Adds a video track.
    /// - Throws: ``MovieWriterError`` once samples have been appended.
    public func addVideoTrack(_ format: VideoTrackFormat) throws -> TrackID {
        guard format.timescale > 0 else { throw MovieWriterError(.invalidFormat, "video track: the time scale must be positive") }
        return try addTrack(.video(format))
    }

    /// Adds an audio track: PCM, appended with ``appendAudioFrames(_:to:startTime:)-(UnsafeRawBufferPointer,_,_)``, or
    /// AAC, appended with ``appendAudioPacket(_:to:startTime:)-(UnsafeRawBufferPointer,_,_)``.
    /// - Throws: ``MovieWriterError`` once samples have been appended, or for a PCM layout a
    ///   movie cannot describe.
    public func addAudioTrack(_ format: AudioTrackFormat) throws -> TrackID {
        do {
            try format.pcm?.validate()
        } catch {
            throw MovieWriterError(.invalidFormat, "audio track: \(error.message)")
        }
        return try addTrack(.audio(format))
    }

    func addTrack(_ media: TrackBuilder.Media) throws -> TrackID {
        guard case .configuring = state else {
            throw MovieWriterError(.invalidState, "adding a track: tracks must all be added before the first sample")
        }
        let id = UInt32(tracks.count + 1)
        let builder = TrackBuilder(id: id, media: media, chunkDuration: configuration.chunkDuration, spill: spill)
        if let interval = configuration.fragmentInterval { builder.fragmentTicks = ticks(interval, timescale: builder.timescale) }
        tracks.append(builder)
        drivingTrack = tracks.first { $0.isVideo } ?? tracks.first { $0.isAudio }
        return TrackID(rawValue: id)
    }

    /// The track `id` names, which must be a video track when `video` is true and an audio
    /// track otherwise.
    func track(_ id: TrackID, video: Bool) throws -> TrackBuilder {
        try track(id, kind: video ? "video" : "audio") { video ? $0.isVideo : $0.isAudio }
    }

    /// The track `id` names, which must be of the `kind` that `isOfKind` accepts.
    func track(_ id: TrackID, kind: String, where isOfKind: (TrackBuilder) -> Bool) throws -> TrackBuilder {
        guard id.rawValue >= 1, Int(id.rawValue) <= tracks.count, isOfKind(tracks[Int(id.rawValue) - 1]) else {
            throw MovieWriterError(.unknownTrack, "\(id) is not a \(kind) track of this writer")
        }
        return tracks[Int(id.rawValue) - 1]
    }

    /// Runs a step that writes to the sink or adds to the sample tables: when it fails, the
    /// movie cannot continue, and the writer has failed.
    func stoppingOnFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            state = .failed
            throw error
        }
    }

    /// Builds the movie atom from the tracks as they are now.
    var movieAtomBuilder: MovieAtomBuilder {
        MovieAtomBuilder(configuration: configuration, tracks: tracks, spill: spill)
    }

    /// Writes the file header before the first sample (``MovieFileHeader``), or checks that the
    /// movie can still take samples.
    func begin() throws {
        switch state {
        case .configuring:
            guard !tracks.isEmpty else { throw MovieWriterError(.invalidState, "starting the movie: add a track first") }
            // With fragments, an empty movie atom that declares them; fragments follow it. No
            // samples yet, so no table has entries waiting elsewhere.
            let fragmentHeader = try isFragmented ? movieAtomBuilder.movieAtom(fragmentHeader: true).atom : nil
            let header = try MovieFileHeader.bytes(fragmentHeader: fragmentHeader)
            try stoppingOnFailure { try output.store(header, at: 0, step: "writing the file header") }
            fileOffset = UInt64(header.count)
            state = .writing
        case .writing:
            return
        case .finished:
            throw MovieWriterError(.invalidState, "appending a sample: the movie is already finished")
        case .failed:
            throw MovieWriterError(.invalidState, "appending a sample: an earlier write failed, so the movie cannot continue")
        }
    }

    /// Leaves `count` bytes of the media area unwritten (a hole in a sparse file), so tests can
    /// reach 64-bit offsets without writing gigabytes.
    func skipMediaBytes(_ count: UInt64) throws {
        try begin()
        for builder in tracks where builder.chunkSampleCount > 0 { try writeChunk(of: builder) }
        fileOffset += count
    }

    /// Writes the pending chunks, the `mdat` size and the `moov` atom.
    ///
    /// - Parameter endTimes: for video tracks, the time the last frame ends, in the track's
    ///   ticks; without it, the last frame lasts as long as the one before. For audio tracks,
    ///   where the audio is cut (on the movie timeline, in ticks of the sample rate); frames past
    ///   it stay in the file but not in the movie.
    /// - Returns: what was written.
    /// - Throws: ``MovieWriterError`` when there is nothing to write or the sink fails.
    @discardableResult
    public func finish(endTimes: [TrackID: Int64] = [:]) throws -> Summary {
        try begin()
        try writeRemainingMedia(endTimes: endTimes)
        // The movie atom goes down before the header that hides the fragments: if the disk fills
        // while writing it, the file is still a fragmented movie that repair can finish.
        let mediaEnd = fileOffset
        let moov = try movieAtomBuilder.movieAtom()
        // The scratch file goes once the movie atom is stored, or its storing failed: a failed
        // writer never writes tables again.
        defer { spill.close() }
        try stoppingOnFailure { try moov.store(to: output, at: mediaEnd, tableBlockSize: spill.blockSize) }
        fileOffset += UInt64(moov.atom.count)
        let mdat = MovieFileHeader.mediaDataSize(mediaEnd: mediaEnd, isFragmented: isFragmented)
        try stoppingOnFailure { try output.store(mdat.bytes, at: mdat.offset, step: mdat.step) }
        state = .finished
        var counts: [TrackID: UInt64] = [:]
        for t in tracks { counts[TrackID(rawValue: t.id)] = t.sampleCount }
        return Summary(duration: moov.duration, movieTimescale: configuration.movieTimescale, fileSize: fileOffset,
                       sampleCounts: counts, usesLargeOffsets: tracks.contains { $0.chunkOffsets.needsLargeOffsets })
    }

    /// Writes the media still pending and closes the tracks (``TrackBuilder/close(endTime:)``).
    /// With fragments, the last fragment goes out after the video tracks are closed, which fixes
    /// their last durations, and before the audio tracks are, whose cut needs every frame
    /// written; without, the pending chunks go out earliest first.
    private func writeRemainingMedia(endTimes: [TrackID: Int64]) throws {
        func close(_ tracks: [TrackBuilder]) throws {
            try stoppingOnFailure {
                for builder in tracks { try builder.close(endTime: endTimes[TrackID(rawValue: builder.id)]) }
            }
        }
        if isFragmented {
            try close(tracks.filter { $0.isVideo })
            try closeMetadataTracks(endTimes: endTimes)
            try writeFragment(nextDecodeTimes: [:], final: true)
            try close(tracks.filter { $0.isAudio })
        } else {
            let pending = tracks.filter { $0.chunkSampleCount > 0 }.sorted {
                rescale($0.chunkStartTime, from: $0.timescale, to: 1_000_000) < rescale($1.chunkStartTime, from: $1.timescale, to: 1_000_000)
            }
            for builder in pending { try writeChunk(of: builder) }
            try close(tracks.filter { !$0.isMetadata })
            try closeMetadataTracks(endTimes: endTimes)
        }
    }
}
