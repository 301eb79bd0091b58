// Timed metadata tracks: `mebx` samples, each holding the values that apply from its time
// until the next sample's, as `AVAssetWriterInputMetadataAdaptor` writes them.
extension MovieWriter {
    /// Adds a timed metadata track (handler `meta`, a `mebx` description listing `format`'s
    /// keys, a `cdsc` reference to the described track).
    /// - Throws: ``MovieWriterError`` once samples have been appended, for a format without
    ///   keys, or for a described track this writer does not have.
    public func addMetadataTrack(_ format: MetadataTrackFormat) throws -> TrackID {
        guard format.timescale > 0, !format.keys.isEmpty else {
            throw MovieWriterError(.invalidFormat, "timed metadata track: give at least one key and a positive time scale")
        }
        if let described = format.describedTrack, described.rawValue < 1 || Int(described.rawValue) > tracks.count {
            throw MovieWriterError(.unknownTrack, "timed metadata track: it describes \(described), which this writer does not have; add that track first")
        }
        return try addTrack(.metadata(format))
    }

    /// Appends a timed metadata sample: `items` hold from `time` until the next sample (or the
    /// end of the movie). An empty `items` says that no value holds from `time` on, such as
    /// while a GPS has no fix.
    ///
    /// - Parameters:
    ///   - items: values of keys the track lists, each at most once.
    ///   - track: a timed metadata track of this writer.
    ///   - time: where the sample starts on the movie timeline, in ticks of the track's time
    ///     scale; not negative, and after the previous sample's.
    /// - Throws: ``MovieWriterError`` for a key the track does not list, a value of the wrong
    ///   type, a time that does not follow the previous sample's, or a failed write.
    public func appendMetadataSample(_ items: [TimedMetadataItem], to track: TrackID, time: Int64) throws {
        let builder = try self.track(track, kind: "timed metadata") { $0.isMetadata }
        guard let entry = builder.metadataEntry else { return }
        let bytes = try TimedMetadataItem.sampleBytes(items, entry: entry)
        guard time >= 0, builder.firstDecodeTime == nil || (time > builder.lastDecodeTime && time - builder.lastDecodeTime <= Int64(UInt32.max)) else {
            throw MovieWriterError(.invalidTimestamps, "\(track): timed metadata at \(time) does not follow the previous sample's \(builder.lastDecodeTime)")
        }
        try begin()
        if isFragmented {
            builder.fragmentSamples.append(.init(size: UInt32(bytes.count), decodeTime: time, compositionOffset: 0, isSync: true))
        } else if builder.chunkSampleCount > 0, time - builder.chunkStartTime >= builder.chunkTicks {
            try writeChunk(of: builder)
        }
        if builder.chunkSampleCount == 0 { builder.chunkStartTime = time }
        if output.omitsMediaData {
            builder.chunk.append(omitting: bytes.count)
        } else {
            bytes.withUnsafeBytes { builder.chunk.append(copying: $0) }
        }
        builder.chunkSampleCount += 1
        try stoppingOnFailure {
            try builder.recordVideoSample(size: bytes.count, decodeTime: time, presentationTime: time, isSync: true)
        }
    }

    /// Ends each timed metadata track where `endTimes` says, else where the movie's other
    /// tracks end: its last sample lasts until then.
    func closeMetadataTracks(endTimes: [TrackID: Int64]) throws {
        let media = tracks.filter { !$0.isMetadata }
        for builder in tracks where builder.isMetadata {
            let end = endTimes[TrackID(rawValue: builder.id)] ?? media.map {
                rescale($0.presentationEnd, from: $0.timescale, to: builder.timescale)
            }.max()
            try stoppingOnFailure { try builder.close(endTime: end) }
        }
    }
}
