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
    /// Settings that apply to the whole movie.
    public struct Configuration: Sendable {
        /// The `mvhd` time scale; Apple writes 600.
        public var movieTimescale: UInt32 = 600
        /// The creation and modification time written into `mvhd`, `tkhd` and `mdhd`.
        public var creationTime: QuickTimeTimestamp
        /// How much media each chunk holds before it is written; Apple's interleaving period is
        /// half a second.
        public var chunkDuration: Duration = .milliseconds(500)
        /// How often a movie fragment is written, or `nil` for the classic layout with the movie
        /// atom only at the end. With fragments, a file cut off at any moment (a crash, a kill,
        /// a power cut) keeps everything up to the last whole fragment; a normal finish still
        /// leaves an ordinary movie. See ``MovieWriter`` for the layout.
        public var fragmentInterval: Duration?
        /// When written data is forced to the disk.
        public var durability = Durability.none
        /// Movie metadata (creation date, location, device, software…), written as `moov/meta`
        /// after the tracks; nothing is written when it is empty.
        public var metadata: [MetadataItem] = []
        /// A Boolean value that indicates whether consecutive media writes are collected into
        /// gathered writes of up to 4 MB (``MediaWriteBatch``) instead of one write per chunk:
        /// for a muxer, whose media is borrowed and whose chunks may be small. Media then
        /// reaches the sink later than ``MovieWriter/bytesWritten`` says, at the latest when
        /// anything else is written.
        package var coalescesMediaWrites = false

        /// Creates a configuration with the default time scale, chunk duration and durability, and
        /// without fragments.
        /// - Parameters:
        ///   - creationTime: The creation and modification time written into `mvhd`, `tkhd` and
        ///     `mdhd`.
        ///   - metadata: Movie metadata, written as `moov/meta`; none by default.
        public init(creationTime: QuickTimeTimestamp, metadata: [MetadataItem] = []) {
            self.creationTime = creationTime
            self.metadata = metadata
        }
    }

    /// When the writer forces data to the disk with `fdatasync`.
    public enum Durability: Sendable, Hashable {
        /// Never while recording; the kernel writes it back in its own time (a kill loses
        /// nothing already written, a power cut may lose the last seconds).
        case none
        /// After every fragment: a power cut loses at most one fragment, at the cost of a disk
        /// flush per fragment.
        case syncEachFragment
    }

    /// What ``finish(endTimes:)`` wrote.
    public struct Summary: Sendable {
        /// The movie's duration in `mvhd` ticks.
        public var duration: UInt64
        /// The movie's time scale from `mvhd`: ticks per second.
        public var movieTimescale: UInt32
        /// The size of the whole file in bytes.
        public var fileSize: UInt64
        /// The sample count of each track, by track.
        public var sampleCounts: [TrackID: UInt64]
        /// Whether chunk offsets needed `co64`.
        public var usesLargeOffsets: Bool
    }

    enum State {
        case configuring
        case writing
        case finished
        case failed
    }

    /// The bytes each sample table keeps in memory before moving them to scratch storage.
    static let defaultTableBlockSize = 1 << 16

    // The mutable state is `@exclusivity(unchecked)`, for the reason given at `TrackBuilder`.
    /// The settings the writer was created with.
    public let configuration: Configuration
    /// Where the movie's bytes go.
    let output: MovieSinkWriter
    private let spill: SampleTableSpill
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

    /// Adds an audio track.
    /// - Throws: ``MovieWriterError`` once samples have been appended, or for a PCM layout a
    ///   movie cannot describe.
    public func addAudioTrack(_ format: AudioTrackFormat) throws -> TrackID {
        do {
            try format.pcm.validate()
        } catch {
            throw MovieWriterError(.invalidFormat, "audio track: \(error.message)")
        }
        return try addTrack(.audio(format))
    }

    private func addTrack(_ media: TrackBuilder.Media) throws -> TrackID {
        guard case .configuring = state else {
            throw MovieWriterError(.invalidState, "adding a track: tracks must all be added before the first sample")
        }
        let id = UInt32(tracks.count + 1)
        let builder = TrackBuilder(id: id, media: media, chunkDuration: configuration.chunkDuration, spill: spill)
        if let interval = configuration.fragmentInterval { builder.fragmentTicks = ticks(interval, timescale: builder.timescale) }
        tracks.append(builder)
        drivingTrack = tracks.first { $0.isVideo } ?? tracks.first
        return TrackID(rawValue: id)
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

    private func track(_ id: TrackID, video: Bool) throws -> TrackBuilder {
        guard id.rawValue >= 1, Int(id.rawValue) <= tracks.count, tracks[Int(id.rawValue) - 1].isVideo == video else {
            throw MovieWriterError(.unknownTrack, "\(id) is not a \(video ? "video" : "audio") track of this writer")
        }
        return tracks[Int(id.rawValue) - 1]
    }

    /// Builds the movie atom from the tracks as they are now.
    private var movieAtomBuilder: MovieAtomBuilder {
        MovieAtomBuilder(configuration: configuration, tracks: tracks, spill: spill)
    }

    private func begin() throws {
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

    /// Appends one video sample (an access unit of length-prefixed NAL units for H.264).
    ///
    /// - Parameters:
    ///   - data: the sample's bytes; they are copied.
    ///   - track: a video track of this writer.
    ///   - decodeTime: ticks of the track's time scale; must increase from sample to sample.
    ///   - presentationTime: ticks; not before `decodeTime`. Differs from it with B-frames.
    ///   - isSync: whether the sample can be decoded on its own (an IDR picture).
    /// - Throws: ``MovieWriterError`` for bad timestamps, a wrong track or a failed write.
    public func appendVideoSample(_ data: UnsafeRawBufferPointer, to track: TrackID, decodeTime: Int64,
                                  presentationTime: Int64, isSync: Bool) throws {
        try appendVideoSample(size: data.count, to: track, decodeTime: decodeTime, presentationTime: presentationTime,
                              isSync: isSync) { $0.append(copying: data) }
    }

    /// Appends one H.264 video sample, each NAL unit behind its four-byte length, without
    /// copying the NAL units: their bytes go to the sink when the sample's chunk or fragment is
    /// written, gathered with the other samples' into one write.
    ///
    /// - Important: `bytes` must stay valid and unchanged until ``finish(endTimes:)`` returns (or
    ///   the writer fails and is discarded), such as a mapped input file's.
    /// - Parameters:
    ///   - nalUnits: where the sample's NAL units lie in `bytes`, as
    ///     ``AnnexBStream/AccessUnit/nalUnitRanges``.
    ///   - others: as ``appendVideoSample(_:to:decodeTime:presentationTime:isSync:)``.
    package func appendVideoSample(borrowingNALUnits nalUnits: ArraySlice<Range<Int>>, of bytes: UnsafeRawBufferPointer,
                                   to track: TrackID, decodeTime: Int64, presentationTime: Int64, isSync: Bool) throws {
        var size = 0
        for range in nalUnits {
            precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a NAL unit lies outside its bytes")
            size += 4 + range.count
        }
        try appendVideoSample(size: size, to: track, decodeTime: decodeTime, presentationTime: presentationTime,
                              isSync: isSync) { media in
            for range in nalUnits {
                media.append(bigEndian: UInt32(range.count))
                media.append(borrowing: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        }
    }

    private func appendVideoSample(size: Int, to track: TrackID, decodeTime: Int64, presentationTime: Int64, isSync: Bool,
                                   bytes appendBytes: (inout PendingMedia) -> Void) throws {
        let builder = try self.track(track, video: true)
        guard size > 0, size <= Int(UInt32.max) else {
            throw MovieWriterError(.invalidSample, "\(track): a video sample of \(size) bytes cannot be stored")
        }
        if builder.firstDecodeTime != nil {
            guard decodeTime > builder.lastDecodeTime, decodeTime - builder.lastDecodeTime <= Int64(UInt32.max) else {
                throw MovieWriterError(.invalidTimestamps,
                    "\(track): decode time \(decodeTime) does not follow the previous sample's \(builder.lastDecodeTime)")
            }
        }
        guard presentationTime >= decodeTime, presentationTime - decodeTime <= Int64(Int32.max) else {
            throw MovieWriterError(.invalidTimestamps,
                "\(track): presentation time \(presentationTime) is before decode time \(decodeTime)")
        }
        try begin()
        if isFragmented {
            try writeFragmentIfDue(beforeVideoSampleAt: decodeTime, of: builder)
            builder.fragmentSamples.append(.init(size: UInt32(size), decodeTime: decodeTime,
                                                 compositionOffset: Int32(presentationTime - decodeTime), isSync: isSync))
        } else if builder.chunkSampleCount > 0, decodeTime - builder.chunkStartTime >= builder.chunkTicks {
            try writeChunk(of: builder)
        }
        if builder.chunkSampleCount == 0 { builder.chunkStartTime = decodeTime }
        if output.omitsMediaData { builder.chunk.append(omitting: size) } else { appendBytes(&builder.chunk) }
        builder.chunkSampleCount += 1
        try stoppingOnFailure {
            try builder.recordVideoSample(size: size, decodeTime: decodeTime, presentationTime: presentationTime, isSync: isSync)
        }
    }

    /// Appends a video sample from an array.
    public func appendVideoSample(_ data: [UInt8], to track: TrackID, decodeTime: Int64, presentationTime: Int64,
                                  isSync: Bool) throws {
        try data.withUnsafeBytes {
            try appendVideoSample($0, to: track, decodeTime: decodeTime, presentationTime: presentationTime, isSync: isSync)
        }
    }

    /// Appends interleaved PCM frames to an audio track. The track's time follows its frame
    /// count from `startTime`, which only the first call sets.
    ///
    /// - Parameters:
    ///   - data: whole frames in the track's PCM format; copied.
    ///   - track: the audio track, as ``addAudioTrack(_:)`` returned it.
    ///   - startTime: for the first call, where the first frame sits on the movie timeline, in
    ///     ticks of the sample rate (negative when audio began before the movie).
    /// - Throws: ``MovieWriterError`` for partial frames, a wrong track or a failed write.
    public func appendAudioFrames(_ data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64 = 0) throws {
        try appendAudioFrames(data, to: track, startTime: startTime, borrowing: false)
    }

    /// Appends interleaved PCM frames without copying them: their bytes go to the sink when the
    /// chunk or fragment is written.
    ///
    /// - Important: `data` must stay valid and unchanged until ``finish(endTimes:)`` returns (or
    ///   the writer fails and is discarded), such as a mapped input file's.
    /// - Parameters: as ``appendAudioFrames(_:to:startTime:)``.
    package func appendAudioFrames(borrowing data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64 = 0) throws {
        try appendAudioFrames(data, to: track, startTime: startTime, borrowing: true)
    }

    private func appendAudioFrames(_ data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64, borrowing: Bool) throws {
        let builder = try self.track(track, video: false)
        guard data.count % builder.bytesPerFrame == 0 else {
            throw MovieWriterError(.invalidSample,
                "\(track): \(data.count) bytes of PCM are not whole frames of \(builder.bytesPerFrame) bytes")
        }
        let frames = data.count / builder.bytesPerFrame
        guard frames > 0 else { return }
        try begin()
        if builder.chunkSampleCount == 0 { builder.chunkStartTime = builder.decodeEnd }
        if output.omitsMediaData {
            builder.chunk.append(omitting: data.count)
        } else if borrowing {
            builder.chunk.append(borrowing: data)
        } else {
            builder.chunk.append(copying: data)
        }
        builder.chunkSampleCount += UInt32(frames)
        try stoppingOnFailure { try builder.recordAudioFrames(frames, startTime: startTime) }
        if isFragmented {
            try writeFragmentIfDue(afterAudioOf: builder)
        } else if Int64(builder.chunkSampleCount) >= builder.chunkTicks {
            try writeChunk(of: builder)
        }
    }

    /// Appends PCM frames from an array.
    public func appendAudioFrames(_ data: [UInt8], to track: TrackID, startTime: Int64 = 0) throws {
        try data.withUnsafeBytes { try appendAudioFrames($0, to: track, startTime: startTime) }
    }

    private func writeChunk(of builder: TrackBuilder) throws {
        let offset = fileOffset
        try stoppingOnFailure {
            try output.storeMedia([(builder, builder.chunk.count)], at: offset, step: "writing media of track \(builder.id)")
        }
        fileOffset += UInt64(builder.chunk.count)
        try stoppingOnFailure { try builder.recordChunk(at: offset) }
    }

    /// Writes the coalesced media collected so far, if it is at least `minimum` bytes, instead of
    /// waiting for the batch to fill: for a caller about to wait for more input, which would
    /// otherwise leave the disk idle while it waits.
    package func writeCollectedMedia(ifAtLeast minimum: Int) throws {
        try stoppingOnFailure { try output.writeCollectedMedia(ifAtLeast: minimum) }
    }

    // MARK: Repair

    /// A writer that finishes a fragmented file cut off before its end: its media stays where it
    /// is, and the samples found in its fragments are entered with the `adopt` calls.
    init(repairing sink: any MovieByteSink, configuration: Configuration, mediaEnd: UInt64) {
        self.configuration = configuration
        output = MovieSinkWriter(sink: sink, coalescesMediaWrites: false)
        spill = SampleTableSpill(sink: sink, blockSize: Self.defaultTableBlockSize)
        state = .writing
        fileOffset = mediaEnd
    }

    /// Adds a track to a writer made by ``init(repairing:configuration:mediaEnd:)``.
    func adoptTrack(_ media: TrackBuilder.Media) -> TrackID {
        let id = UInt32(tracks.count + 1)
        tracks.append(TrackBuilder(id: id, media: media, chunkDuration: configuration.chunkDuration, spill: spill))
        return TrackID(rawValue: id)
    }

    /// Enters a run of video samples already in the file at `offset`, as one chunk.
    /// - Throws: ``MovieWriterError`` when the tables cannot use scratch storage.
    func adoptVideoRun(_ track: TrackID, at offset: UInt64,
                       samples: [(size: UInt32, decodeTime: Int64, compositionOffset: Int32, isSync: Bool)]) throws {
        let builder = tracks[Int(track.rawValue) - 1]
        try stoppingOnFailure {
            for s in samples {
                try builder.recordVideoSample(size: Int(s.size), decodeTime: s.decodeTime,
                                              presentationTime: s.decodeTime + Int64(s.compositionOffset), isSync: s.isSync)
            }
            try builder.addChunk(at: offset, sampleCount: UInt32(samples.count))
        }
    }

    /// Enters a run of PCM frames already in the file at `offset`, as one chunk.
    /// - Throws: ``MovieWriterError`` when the tables cannot use scratch storage.
    func adoptAudioRun(_ track: TrackID, at offset: UInt64, frames: Int, startTime: Int64) throws {
        let builder = tracks[Int(track.rawValue) - 1]
        try stoppingOnFailure {
            try builder.recordAudioFrames(frames, startTime: startTime)
            try builder.addChunk(at: offset, sampleCount: UInt32(frames))
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
        if isFragmented {
            try stoppingOnFailure {
                for builder in tracks where builder.isVideo { try builder.close(endTime: endTimes[TrackID(rawValue: builder.id)]) }
            }
            try writeFragment(nextDecodeTimes: [:], final: true)
            try stoppingOnFailure {
                for builder in tracks where !builder.isVideo { try builder.close(endTime: endTimes[TrackID(rawValue: builder.id)]) }
            }
        } else {
            let pending = tracks.filter { $0.chunkSampleCount > 0 }.sorted {
                rescale($0.chunkStartTime, from: $0.timescale, to: 1_000_000) < rescale($1.chunkStartTime, from: $1.timescale, to: 1_000_000)
            }
            for builder in pending { try writeChunk(of: builder) }
            try stoppingOnFailure {
                for builder in tracks { try builder.close(endTime: endTimes[TrackID(rawValue: builder.id)]) }
            }
        }

        // The movie atom goes down before the header that hides the fragments: if the disk fills
        // while writing it, the file is still a fragmented movie that repair can finish.
        let mediaEnd = fileOffset
        let moov = try movieAtomBuilder.movieAtom()
        // The scratch file goes once the movie atom is stored, or its storing failed: a failed
        // writer never writes tables again.
        defer { spill.close() }
        try stoppingOnFailure { try moov.store(to: output, at: mediaEnd, tableBlockSize: spill.blockSize) }
        let duration = moov.duration
        fileOffset += UInt64(moov.atom.count)
        let mdat = MovieFileHeader.mediaDataSize(mediaEnd: mediaEnd, isFragmented: isFragmented)
        try stoppingOnFailure { try output.store(mdat.bytes, at: mdat.offset, step: mdat.step) }
        state = .finished
        var counts: [TrackID: UInt64] = [:]
        for t in tracks { counts[TrackID(rawValue: t.id)] = t.sampleCount }
        return Summary(duration: duration, movieTimescale: configuration.movieTimescale, fileSize: fileOffset,
                       sampleCounts: counts, usesLargeOffsets: tracks.contains { $0.chunkOffsets.needsLargeOffsets })
    }
}
