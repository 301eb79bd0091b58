// Repair's entry points (`MovieRepair`): a writer that takes over a fragmented file cut off
// before its end, is told the samples found in its fragments, and finishes it in place.
extension MovieWriter {
    /// A writer that finishes a fragmented file cut off before its end: its media stays where it
    /// is, and the samples found in its fragments are entered with the `adopt` calls.
    convenience init(repairing sink: any MovieByteSink, configuration: Configuration, mediaEnd: UInt64) {
        // Repair writes only the movie atom and the mdat header: there is no media to batch.
        var configuration = configuration
        configuration.coalescesMediaWrites = false
        self.init(sink: sink, configuration: configuration, tableBlockSize: Self.defaultTableBlockSize)
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

    /// Enters a run of timed metadata samples already in the file at `offset`, as one chunk.
    /// Samples that do not start after the previous one, or start more than 2^32 ticks after
    /// it (a hostile `tfdt`), are left out.
    /// - Throws: ``MovieWriterError`` when the tables cannot use scratch storage.
    func adoptMetadataRun(_ track: TrackID, at offset: UInt64, samples: [(size: UInt32, time: Int64)]) throws {
        let builder = tracks[Int(track.rawValue) - 1]
        var kept: UInt32 = 0
        try stoppingOnFailure {
            for s in samples where s.time >= 0 && (builder.firstDecodeTime == nil
                || (s.time > builder.lastDecodeTime && s.time - builder.lastDecodeTime <= Int64(UInt32.max))) {
                try builder.recordVideoSample(size: Int(s.size), decodeTime: s.time, presentationTime: s.time, isSync: true)
                kept += 1
            }
            if kept > 0 { try builder.addChunk(at: offset, sampleCount: kept) }
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

    /// Enters a run of AAC access units already in the file at `offset`, as one chunk.
    /// - Throws: ``MovieWriterError`` when the tables cannot use scratch storage.
    func adoptAudioPacketRun(_ track: TrackID, at offset: UInt64, sizes: [UInt32], startTime: Int64) throws {
        let builder = tracks[Int(track.rawValue) - 1]
        try stoppingOnFailure {
            for size in sizes { try builder.recordAudioPacket(size: Int(size), startTime: startTime) }
            try builder.addChunk(at: offset, sampleCount: UInt32(sizes.count))
        }
    }
}
