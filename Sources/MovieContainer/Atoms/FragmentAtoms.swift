/// `trex`: a track's defaults for movie fragments, inside `mvex` (ISO/IEC 14496-12 §8.8.3).
package struct TrackExtendsAtom: QuickTimeAtom {
    package static let type: FourCC = "trex"
    package var trackID: UInt32
    package var defaultSampleDescriptionIndex: UInt32 = 1
    package var defaultSampleDuration: UInt32 = 0
    package var defaultSampleSize: UInt32 = 0
    package var defaultSampleFlags: UInt32 = 0

    package init(trackID: UInt32) { self.trackID = trackID }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(trackID)
        w.write(defaultSampleDescriptionIndex)
        w.write(defaultSampleDuration)
        w.write(defaultSampleSize)
        w.write(defaultSampleFlags)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        trackID = try r.readUInt32()
        defaultSampleDescriptionIndex = try r.readUInt32()
        defaultSampleDuration = try r.readUInt32()
        defaultSampleSize = try r.readUInt32()
        defaultSampleFlags = try r.readUInt32()
    }
}

/// `mfhd`: a movie fragment's sequence number, from 1 (ISO/IEC 14496-12 §8.8.5).
package struct MovieFragmentHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "mfhd"
    package var sequenceNumber: UInt32

    package init(sequenceNumber: UInt32) { self.sequenceNumber = sequenceNumber }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(sequenceNumber)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        sequenceNumber = try r.readUInt32()
    }
}

/// `tfhd`: a track fragment's track and defaults (ISO/IEC 14496-12 §8.8.7). This library
/// writes `default-base-is-moof` (offsets count from the `moof`) and, for PCM, a default size
/// and duration so one `trun` covers a whole chunk without an entry per frame.
package struct TrackFragmentHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "tfhd"
    package static let baseDataOffsetPresent: UInt32 = 0x000001
    package static let defaultDurationPresent: UInt32 = 0x000008
    package static let defaultSizePresent: UInt32 = 0x000010
    package static let defaultFlagsPresent: UInt32 = 0x000020
    package static let defaultBaseIsMoof: UInt32 = 0x020000

    package var trackID: UInt32
    package var baseDataOffset: UInt64?
    package var defaultSampleDuration: UInt32?
    package var defaultSampleSize: UInt32?
    package var defaultSampleFlags: UInt32?
    package var defaultBaseIsMoof = true

    package init(trackID: UInt32, defaultSampleDuration: UInt32? = nil, defaultSampleSize: UInt32? = nil,
                defaultSampleFlags: UInt32? = nil) {
        self.trackID = trackID
        self.defaultSampleDuration = defaultSampleDuration
        self.defaultSampleSize = defaultSampleSize
        self.defaultSampleFlags = defaultSampleFlags
    }

    var flags: UInt32 {
        (baseDataOffset != nil ? Self.baseDataOffsetPresent : 0)
            | (defaultSampleDuration != nil ? Self.defaultDurationPresent : 0)
            | (defaultSampleSize != nil ? Self.defaultSizePresent : 0)
            | (defaultSampleFlags != nil ? Self.defaultFlagsPresent : 0)
            | (defaultBaseIsMoof ? Self.defaultBaseIsMoof : 0)
    }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: flags)
        w.write(trackID)
        if let baseDataOffset { w.write(baseDataOffset) }
        if let defaultSampleDuration { w.write(defaultSampleDuration) }
        if let defaultSampleSize { w.write(defaultSampleSize) }
        if let defaultSampleFlags { w.write(defaultSampleFlags) }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (_, flags) = try r.readVersionAndFlags()
        trackID = try r.readUInt32()
        if flags & Self.baseDataOffsetPresent != 0 { baseDataOffset = try r.readUInt64() }
        if flags & 0x000002 != 0 { try r.skip(4) }  // sample description index
        if flags & Self.defaultDurationPresent != 0 { defaultSampleDuration = try r.readUInt32() }
        if flags & Self.defaultSizePresent != 0 { defaultSampleSize = try r.readUInt32() }
        if flags & Self.defaultFlagsPresent != 0 { defaultSampleFlags = try r.readUInt32() }
        defaultBaseIsMoof = flags & Self.defaultBaseIsMoof != 0
    }
}

/// `tfdt`: the decode time of a track fragment's first sample, in media ticks (ISO/IEC 14496-12
/// §8.8.12). Written as version 1 (64-bit).
package struct TrackFragmentDecodeTimeAtom: QuickTimeAtom {
    package static let type: FourCC = "tfdt"
    package var baseMediaDecodeTime: UInt64

    package init(baseMediaDecodeTime: UInt64) { self.baseMediaDecodeTime = baseMediaDecodeTime }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 1, flags: 0)
        w.write(baseMediaDecodeTime)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, _) = try r.readVersionAndFlags()
        baseMediaDecodeTime = version == 1 ? try r.readUInt64() : UInt64(try r.readUInt32())
    }
}

/// `trun`: a run of samples in a track fragment (ISO/IEC 14496-12 §8.8.8): where their data
/// starts (from the `moof`) and, per sample, what the `tfhd` defaults do not give.
package struct TrackRunAtom: QuickTimeAtom {
    package static let type: FourCC = "trun"
    package static let dataOffsetPresent: UInt32 = 0x000001
    package static let firstSampleFlagsPresent: UInt32 = 0x000004
    package static let durationPresent: UInt32 = 0x000100
    package static let sizePresent: UInt32 = 0x000200
    package static let flagsPresent: UInt32 = 0x000400
    package static let compositionOffsetPresent: UInt32 = 0x000800

    /// Sample flags for a sync sample: depends on no other sample.
    package static let syncSampleFlags: UInt32 = 0x0200_0000
    /// Sample flags for a non-sync sample: depends on others, is_non_sync_sample set.
    package static let nonSyncSampleFlags: UInt32 = 0x0101_0000

    package struct Sample: Hashable, Sendable {
        package var duration: UInt32?
        package var size: UInt32?
        package var flags: UInt32?
        package var compositionOffset: Int32?
        package init(duration: UInt32? = nil, size: UInt32? = nil, flags: UInt32? = nil, compositionOffset: Int32? = nil) {
            self.duration = duration
            self.size = size
            self.flags = flags
            self.compositionOffset = compositionOffset
        }
    }

    /// Which per-sample fields are present (the `trun` flags above 0x100).
    package var sampleFields: UInt32
    package var dataOffset: Int32?
    package var sampleCount: UInt32
    /// One entry per sample when any per-sample field is present; empty otherwise.
    package var samples: [Sample]
    /// The first sample's flags when the run gives them apart from the others (read only).
    package var firstSampleFlags: UInt32?

    package init(dataOffset: Int32?, sampleCount: UInt32, sampleFields: UInt32, samples: [Sample]) {
        self.dataOffset = dataOffset
        self.sampleCount = sampleCount
        self.sampleFields = sampleFields
        self.samples = samples
    }

    /// Where the data offset lies from the start of the atom (its size field), when present:
    /// after the header, the version and flags and the sample count. A writer that learns the
    /// offset only after laying out the atom patches it there.
    package static let dataOffsetPosition = 16

    package func writeBody(to w: inout ByteWriter) {
        let version: UInt8 = samples.contains { ($0.compositionOffset ?? 0) < 0 } ? 1 : 0
        w.writeVersionAndFlags(version: version, flags: sampleFields | (dataOffset != nil ? Self.dataOffsetPresent : 0))
        w.write(sampleCount)
        if let dataOffset { w.write(dataOffset) }
        let duration = sampleFields & Self.durationPresent != 0, size = sampleFields & Self.sizePresent != 0
        let flags = sampleFields & Self.flagsPresent != 0, offset = sampleFields & Self.compositionOffsetPresent != 0
        let entrySize = 4 * ((duration ? 1 : 0) + (size ? 1 : 0) + (flags ? 1 : 0) + (offset ? 1 : 0))
        guard entrySize > 0 else { return }
        // The table is stored in place, field by field: a fragment's run is written for every
        // fragment of a recording, and one append per field showed in the muxer's profile.
        w.write(count: samples.count * entrySize) { out in
            var at = 0
            func put(_ value: UInt32) {
                out.storeBytes(of: value.bigEndian, toByteOffset: at, as: UInt32.self)
                at += 4
            }
            for s in samples {
                if duration { put(s.duration ?? 0) }
                if size { put(s.size ?? 0) }
                if flags { put(s.flags ?? 0) }
                if offset { put(UInt32(bitPattern: s.compositionOffset ?? 0)) }
            }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (_, flags) = try r.readVersionAndFlags()
        sampleCount = try r.readUInt32()
        dataOffset = flags & Self.dataOffsetPresent != 0 ? try r.readInt32() : nil
        var firstFlags: UInt32?
        if flags & Self.firstSampleFlagsPresent != 0 { firstFlags = try r.readUInt32() }
        let fields = flags & (Self.durationPresent | Self.sizePresent | Self.flagsPresent | Self.compositionOffsetPresent)
        sampleFields = fields
        firstSampleFlags = firstFlags
        let entrySize = [Self.durationPresent, Self.sizePresent, Self.flagsPresent, Self.compositionOffsetPresent]
            .filter { fields & $0 != 0 }.count * 4
        samples = []
        guard entrySize > 0 else { return }
        try r.requireTable(count: sampleCount, entrySize: entrySize)
        samples.reserveCapacity(Int(sampleCount))
        for _ in 0..<sampleCount {
            var s = Sample()
            if fields & Self.durationPresent != 0 { s.duration = try r.readUInt32() }
            if fields & Self.sizePresent != 0 { s.size = try r.readUInt32() }
            if fields & Self.flagsPresent != 0 { s.flags = try r.readUInt32() }
            if fields & Self.compositionOffsetPresent != 0 { s.compositionOffset = try r.readInt32() }
            samples.append(s)
        }
    }
}
