/// One sample of a timed metadata track as read back: when it holds on the movie timeline and
/// its values (none when the sample says that no value holds, such as a GPS without a fix).
public struct TimedMetadataSample: Hashable, Sendable {
    /// Where the sample starts on the movie timeline, in seconds.
    public var time: Double
    /// How long it holds, in seconds.
    public var duration: Double
    /// Its values.
    public var items: [TimedMetadataItem]

    /// The value of `key` in this sample, if it holds one.
    public func value(of key: TimedMetadataKey) -> MetadataItem.Value? {
        items.first { $0.key == key }?.value
    }
}

extension MovieInfo {
    /// The timed metadata tracks: handler `meta` with a `mebx` description.
    public var metadataTracks: [TrackInfo] { tracks.filter { $0.metadataEntry != nil } }

    /// Reads every sample of the timed metadata track `track` from `source`, placed on the
    /// movie timeline by the track's edit list.
    /// - Throws: ``MovieFormatError`` when `track` is not a readable timed metadata track or a
    ///   sample does not parse; the source's own errors.
    public func timedMetadataSamples(of track: TrackInfo, in source: any MovieByteSource) throws -> [TimedMetadataSample] {
        guard let entry = track.metadataEntry, let table = track.sampleTable else {
            throw MovieFormatError.invalidValue("trak", "track \(track.trackID) is not a timed metadata ('mebx') track")
        }
        let scale = Double(max(1, track.mediaHeader.timescale))
        let (start, mediaStart) = mediaPlacement(of: track)
        return try table.samples().map { sample in
            let bytes = sample.size == 0 ? [] : try source.read(at: sample.offset, count: Int(sample.size))
            return TimedMetadataSample(time: start + Double(sample.decodeTime - mediaStart) / scale,
                                       duration: Double(sample.duration) / scale,
                                       items: try TimedMetadataItem.items(inSample: bytes, entry: entry))
        }
    }

    /// Where a track's media starts on the movie timeline (seconds of empty edits before it)
    /// and the media time it starts from.
    private func mediaPlacement(of track: TrackInfo) -> (seconds: Double, mediaTime: Int64) {
        var empty: UInt64 = 0
        for edit in track.editList {
            if edit.mediaTime >= 0 { return (Double(empty) / Double(max(1, movieHeader.timescale)), edit.mediaTime) }
            empty += edit.segmentDuration
        }
        return (0, 0)
    }
}
