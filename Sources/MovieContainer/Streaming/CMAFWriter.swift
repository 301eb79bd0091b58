/// Writes a live stream as CMAF (ISO/IEC 23000-19) fragmented MP4: an initialization segment
/// (`ftyp` with the `cmfc` and `iso6` brands, `moov` with `mvex` and no samples) and chunks of
/// `moof` + `mdat`, each one or more samples per track, that players append in order.
///
/// Track 1 is H.264 video; track 2, when present, AAC audio in an ISO `mp4a` sample entry (the
/// QuickTime version 2 sound description of a movie is not what browsers' MP4 parsers read).
/// Each chunk starts with a `prft` mapping its first video sample to the wall-clock time it was
/// captured.
package struct CMAFWriter: Sendable {
    package static let videoTrackID: UInt32 = 1
    package static let audioTrackID: UInt32 = 2

    package let video: VideoTrackFormat
    package let audio: AACFormat?
    /// The sequence number of the last chunk written; 0 before the first.
    package private(set) var sequenceNumber: UInt32 = 0

    package init(video: VideoTrackFormat, audio: AACFormat?) {
        self.video = video
        self.audio = audio
    }

    /// The codecs parameter of a MIME type for this stream, such as `avc1.64001f,mp4a.40.2`, as
    /// RFC 6381 and HLS's `CODECS` attribute spell it.
    package var codecs: String {
        var list: [String] = []
        if let video = video.sampleEntry.codecString { list.append(video) }
        if let audio { list.append("mp4a.40.\(audio.objectType)") }
        return list.joined(separator: ",")
    }

    /// The initialization segment, its video track's matrix turned to `orientation`.
    package func initializationSegment(orientation: VideoOrientation) -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        // Every atom here is a few hundred bytes; writeAtom throws only past 4 GiB.
        try? FileTypeAtom(majorBrand: "iso6", minorVersion: 0, compatibleBrands: ["iso6", "cmfc", "mp41"]).write(to: &w)
        try? w.writeAtom("moov") { w in
            try MovieHeaderAtom(creationTime: .init(secondsSince1904: 0), modificationTime: .init(secondsSince1904: 0),
                                timescale: 1000, duration: 0, nextTrackID: audio == nil ? 2 : 3).write(to: &w)
            try writeVideoTrack(orientation: orientation, to: &w)
            if let audio { try writeAudioTrack(audio, to: &w) }
            try w.writeAtom("mvex") { w in
                try TrackExtendsAtom(trackID: Self.videoTrackID).write(to: &w)
                if audio != nil { try TrackExtendsAtom(trackID: Self.audioTrackID).write(to: &w) }
            }
        }
        return w.bytes
    }

    private func writeVideoTrack(orientation: VideoOrientation, to w: inout ByteWriter) throws {
        let width = video.sampleEntry.width, height = video.sampleEntry.height
        try w.writeAtom("trak") { w in
            try TrackHeaderAtom(trackID: Self.videoTrackID, creationTime: .init(secondsSince1904: 0), duration: 0, volume: 0,
                                matrix: orientation.matrix(width: Int32(width), height: Int32(height)),
                                width: UInt32(width) << 16, height: UInt32(height) << 16).write(to: &w)
            try writeMedia(timescale: video.timescale, handler: "vide", name: "Video", to: &w) { w in
                try VideoMediaHeaderAtom().write(to: &w)
            } sampleEntry: {
                video.sampleEntry.descriptionEntry
            }
        }
    }

    private func writeAudioTrack(_ audio: AACFormat, to w: inout ByteWriter) throws {
        try w.writeAtom("trak") { w in
            try TrackHeaderAtom(trackID: Self.audioTrackID, creationTime: .init(secondsSince1904: 0), duration: 0,
                                volume: 0x0100, matrix: .identity, width: 0, height: 0).write(to: &w)
            try writeMedia(timescale: audio.sampleRate, handler: "soun", name: "Audio", to: &w) { w in
                try SoundMediaHeaderAtom().write(to: &w)
            } sampleEntry: {
                Self.isoAudioEntry(audio)
            }
        }
    }

    /// Writes `mdia` with an empty sample table: fragments carry every sample.
    private func writeMedia(timescale: UInt32, handler: FourCC, name: String, to w: inout ByteWriter,
                            header: (inout ByteWriter) throws -> Void,
                            sampleEntry: () -> SampleDescriptionAtom.Entry) throws {
        try w.writeAtom("mdia") { w in
            try MediaHeaderAtom(creationTime: .init(secondsSince1904: 0), timescale: timescale, duration: 0).write(to: &w)
            // ISO's handler: pre-defined 0 where QuickTime has 'mhlr', and a C-string name.
            try w.writeAtom("hdlr") { w in
                w.writeVersionAndFlags(version: 0, flags: 0)
                w.write(UInt32(0))
                w.write(handler)
                w.writeZeros(12)
                w.write(contentsOf: Array(name.utf8) + [0])
            }
            try w.writeAtom("minf") { w in
                try header(&w)
                try w.writeAtom("dinf") { try DataReferenceAtom().write(to: &$0) }
                try w.writeAtom("stbl") { w in
                    try SampleDescriptionAtom(entries: [sampleEntry()]).write(to: &w)
                    for empty in ["stts", "stsc", "stco"] as [FourCC] {
                        try w.writeAtom(empty) { $0.writeVersionAndFlags(version: 0, flags: 0); $0.write(UInt32(0)) }
                    }
                    try w.writeAtom("stsz") { w in
                        w.writeVersionAndFlags(version: 0, flags: 0)
                        w.write(UInt32(0))
                        w.write(UInt32(0))
                    }
                }
            }
        }
    }

    /// An ISO/IEC 14496-14 `mp4a` AudioSampleEntry: version 0 fields, then `esds`.
    static func isoAudioEntry(_ audio: AACFormat) -> SampleDescriptionAtom.Entry {
        var w = ByteWriter(capacity: 96)
        w.writeZeros(6)
        w.write(UInt16(1))  // data reference index
        w.writeZeros(8)  // reserved
        w.write(audio.channelCount)
        w.write(UInt16(16))  // sample size
        w.writeZeros(4)  // pre-defined, reserved
        w.write(audio.sampleRate <= 0xFFFF ? audio.sampleRate << 16 : 0)
        try? ElementaryStreamDescriptorAtom(aac: audio).write(to: &w)
        return .init(format: "mp4a", body: w.bytes)
    }

    /// Writes the next chunk: a `prft` for its first video sample when `captureTime` is given
    /// (nanoseconds since 1970-01-01 UTC), `moof` and `mdat`.
    /// - Precondition: at least one sample.
    package mutating func chunk(video: [CMAFSample], audio: [CMAFSample], captureTime: UInt64?) -> [UInt8] {
        precondition(!video.isEmpty || !audio.isEmpty, "a chunk holds at least one sample")
        sequenceNumber += 1
        let payload = (video + audio).reduce(0) { $0 + $1.data.count }
        var w = ByteWriter(capacity: 512 + payload)
        if let captureTime, let first = video.first {
            try? ProducerReferenceTimeAtom(referenceTrackID: Self.videoTrackID,
                                           ntpTimestamp: ProducerReferenceTimeAtom.ntpTimestamp(unixNanoseconds: captureTime),
                                           mediaTime: first.decodeTime).write(to: &w)
        }
        let moofStart = w.count
        var offsetPositions: [Int] = []
        try? w.writeAtom("moof") { w in
            try MovieFragmentHeaderAtom(sequenceNumber: sequenceNumber).write(to: &w)
            if !video.isEmpty { offsetPositions.append(try Self.writeTrackFragment(Self.videoTrackID, video, to: &w)) }
            if !audio.isEmpty { offsetPositions.append(try Self.writeTrackFragment(Self.audioTrackID, audio, to: &w)) }
        }
        let moofSize = w.count - moofStart
        var dataOffset = moofSize + 8
        for (position, samples) in zip(offsetPositions, [video, audio].filter { !$0.isEmpty }) {
            w.patch(UInt32(dataOffset), at: position)
            dataOffset += samples.reduce(0) { $0 + $1.data.count }
        }
        w.write(UInt32(8 + payload))
        w.write("mdat" as FourCC)
        for sample in video + audio { w.write(contentsOf: sample.data) }
        return w.bytes
    }

    /// Writes a `traf` of consecutive samples and returns where its run's data offset lies.
    private static func writeTrackFragment(_ trackID: UInt32, _ samples: [CMAFSample], to w: inout ByteWriter) throws -> Int {
        let offsets = samples.contains { $0.compositionOffset != 0 }
        let fields = TrackRunAtom.durationPresent | TrackRunAtom.sizePresent | TrackRunAtom.flagsPresent
            | (offsets ? TrackRunAtom.compositionOffsetPresent : 0)
        let run = samples.map {
            TrackRunAtom.Sample(duration: $0.duration, size: UInt32($0.data.count),
                                flags: $0.isSync ? TrackRunAtom.syncSampleFlags : TrackRunAtom.nonSyncSampleFlags,
                                compositionOffset: offsets ? $0.compositionOffset : nil)
        }
        var position = 0
        try w.writeAtom("traf") { w in
            try TrackFragmentHeaderAtom(trackID: trackID).write(to: &w)
            try TrackFragmentDecodeTimeAtom(baseMediaDecodeTime: samples[0].decodeTime).write(to: &w)
            position = w.count + TrackRunAtom.dataOffsetPosition
            try TrackRunAtom(dataOffset: 0, sampleCount: UInt32(samples.count), sampleFields: fields, samples: run).write(to: &w)
        }
        return position
    }
}
