

/// A summary of one track.
public struct TrackInfo: Sendable {
    package var header: TrackHeaderAtom
    /// The file offset of the `tkhd` atom.
    public var headerOffset: UInt64
    package var mediaHeader: MediaHeaderAtom
    /// The handler subtype: `vide`, `soun`, `meta`…
    public var mediaType: FourCC
    /// The name in the media handler (`mdia/hdlr`), such as `Core Media Video`; empty when the
    /// track has no handler.
    public var handlerName: String
    /// The first sample description's format: `avc1`, `sowt`, `lpcm`…
    public var codec: FourCC?
    package var sampleDescription: SampleDescriptionAtom.Entry?
    package var editList: [EditListAtom.Entry]
    /// The sample tables, when the track has them.
    package var sampleTable: SampleTable?

    /// The track ID from `tkhd`.
    public var trackID: UInt32 { header.trackID }

    /// The orientation the `tkhd` matrix expresses, or `nil` for a matrix that scales or
    /// shears.
    public var orientation: VideoOrientation? { VideoOrientation(matrix: header.matrix) }

    /// The file offset of the 36 matrix bytes inside `tkhd`.
    public var matrixOffset: UInt64 { headerOffset + UInt64(TrackHeaderAtom.matrixOffset(version: header.version)) }

    /// The track's presentation width in pixels, from `tkhd` (16.16 fixed point rounded down).
    public var width: Int { Int(header.width >> 16) }
    /// The track's presentation height in pixels, from `tkhd` (16.16 fixed point rounded down).
    public var height: Int { Int(header.height >> 16) }

    /// The number of samples from `stsz` (for PCM, frames; for AAC, access units).
    public var sampleCount: UInt64 { UInt64(sampleTable?.sizes.sampleCount ?? 0) }

    /// The media's duration in seconds, from `mdhd`.
    public var mediaDurationSeconds: Double {
        mediaHeader.timescale == 0 ? 0 : Double(mediaHeader.duration) / Double(mediaHeader.timescale)
    }

    /// The video sample description, for video tracks.
    package var videoEntry: VideoSampleEntry? {
        guard mediaType == "vide", let sampleDescription else { return nil }
        return try? VideoSampleEntry(sampleDescription)
    }

    /// The codecs parameter of a MIME type for a video track (RFC 6381), such as
    /// `avc1.64001F` or `hvc1.1.6.L93.B0`; `nil` for other tracks and formats.
    public var codecString: String? { videoEntry?.codecString }

    /// A video track's profile, tier and level in words, such as "HEVC Main, Main tier, level
    /// 3.1", read from its `avcC` or `hvcC`; `nil` for other tracks and formats.
    public var profileDescription: String? { videoEntry?.profileDescription }

    /// The colour description of a video track's `colr` atom ('nclc', or 'nclx' with its
    /// full-range bit), if it has one.
    public var color: ColorDescription? {
        guard let body = videoEntry?.extensions.first(where: { $0.type == ColorParameterAtom.type })?.body else { return nil }
        var r = ByteReader(body, context: ColorParameterAtom.type)
        return try? ColorParameterAtom(body: &r).color
    }

    /// The PCM layout, for uncompressed audio tracks.
    public var pcmFormat: PCMFormat? {
        guard mediaType == "soun", let sampleDescription else { return nil }
        return try? SoundSampleEntry(sampleDescription).pcm
    }

    /// The AAC configuration, for AAC (`mp4a`) audio tracks, with the encoder delay the edit
    /// list hides (the media time of its first non-empty edit) as
    /// ``AACFormat/primingFrames``.
    public var aacFormat: AACFormat? {
        guard mediaType == "soun", let sampleDescription, sampleDescription.format == AACSampleEntry.format,
              var aac = try? AACSampleEntry(sampleDescription).aac else { return nil }
        aac.primingFrames = UInt32(clamping: editList.first { $0.mediaTime >= 0 }?.mediaTime ?? 0)
        return aac
    }

    /// The tracks a timed metadata track describes (its `cdsc` references); empty for others.
    public var describedTrackIDs: [UInt32]

    /// The keys of a timed metadata track (`mebx`), local ID 1 first; `nil` for other tracks
    /// or a description this library cannot read.
    public var metadataKeys: [TimedMetadataKey]? { metadataEntry?.keys }

    package var metadataEntry: MetadataSampleEntry? {
        guard mediaType == "meta", let sampleDescription, sampleDescription.format == MetadataSampleEntry.format else { return nil }
        return try? MetadataSampleEntry(sampleDescription)
    }

    init(trak: AtomNode) throws(MovieFormatError) {
        guard let tkhd = trak.child("tkhd") else { throw .missingAtom("tkhd", in: "a track atom") }
        header = try tkhd.decode(TrackHeaderAtom.self)
        headerOffset = tkhd.offset
        guard let mdia = trak.child("mdia") else { throw .missingAtom("mdia", in: "track \(header.trackID)") }
        guard let mdhd = mdia.child("mdhd") else { throw .missingAtom("mdhd", in: "track \(header.trackID)") }
        mediaHeader = try mdhd.decode(MediaHeaderAtom.self)
        let hdlr = try mdia.child("hdlr")?.decode(HandlerAtom.self)
        mediaType = hdlr?.componentSubtype ?? FourCC(rawValue: 0)
        handlerName = hdlr?.name ?? ""
        editList = try trak.descendant(["edts", "elst"])?.decode(EditListAtom.self).entries ?? []
        describedTrackIDs = try trak.child("tref")?.decode(ContentDescribesReferenceAtom.self).trackIDs ?? []
        if let stbl = mdia.descendant(["minf", "stbl"]) {
            let stsd = try stbl.child("stsd")?.decode(SampleDescriptionAtom.self)
            sampleDescription = stsd?.entries.first
            codec = sampleDescription?.format
            sampleTable = try SampleTable(stbl: stbl)
        } else {
            sampleDescription = nil
            codec = nil
            sampleTable = nil
        }
    }
}
