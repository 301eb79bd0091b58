/// A sound sample description for AAC (`mp4a`), in the form QuickTime movies carry it: a
/// version 1 sound description (compression ID −2, 1024 frames per packet), a `wave` atom
/// holding `frma`, an `mp4a` atom, the `esds` and a terminator, then a `chan` atom for mono and
/// stereo (QuickTime File Format, "Sound Sample Description Extensions"; FFmpeg's
/// `mov_write_audio_tag` writes the same). Above 65535 Hz, which the 16.16 rate of versions 0
/// and 1 cannot hold, it is version 2, whose rate is a 64-bit float, as FFmpeg writes it.
///
/// The reader takes the `esds` from inside `wave` or, as MP4 files have it, straight after the
/// fixed fields.
package struct AACSampleEntry: Hashable, Sendable {
    package static let format: FourCC = "mp4a"
    package var aac: AACFormat

    package init(aac: AACFormat) { self.aac = aac }

    package var descriptionEntry: SampleDescriptionAtom.Entry {
        var w = ByteWriter(capacity: 160)
        w.writeZeros(6)
        w.write(UInt16(1))  // data reference index
        if aac.sampleRate <= 65535 {
            writeVersion1Fields(to: &w)
        } else {
            // Compressed: no bits per channel, flags or fixed packet size; 1024 frames per packet.
            SoundSampleEntry.writeVersion2Fields(to: &w, sampleRate: aac.sampleRate, channelCount: aac.channelCount, bitsPerChannel: 0,
                                                 flags: 0, bytesPerPacket: 0, framesPerPacket: UInt32(AACFormat.framesPerPacket))
        }
        // writeAtom throws only past 4 GiB.
        try? w.writeAtom("wave") { w in
            w.write(UInt32(12))
            w.write("frma" as FourCC)
            w.write(Self.format)
            w.write(UInt32(12))
            w.write(Self.format)
            w.write(UInt32(0))
            try ElementaryStreamDescriptorAtom(aac: aac).write(to: &w)
            w.write(UInt32(8))  // terminator atom
            w.write(UInt32(0))
        }
        if aac.channelCount <= 2 {
            let chan = ChannelLayoutAtom(layoutTag: aac.channelCount == 1 ? ChannelLayoutAtom.mono : ChannelLayoutAtom.stereo)
            w.write(contentsOf: chan.encoded)
        }
        return .init(format: Self.format, body: w.bytes)
    }

    private func writeVersion1Fields(to w: inout ByteWriter) {
        w.write(UInt16(1))  // version
        w.write(UInt16(0))  // revision level
        w.write(UInt32(0))  // vendor
        w.write(aac.channelCount)
        w.write(UInt16(16))  // sample size
        w.write(Int16(-2))  // compression ID: variable-rate compressed audio
        w.write(UInt16(0))  // packet size
        w.write(aac.sampleRate << 16)  // 16.16
        w.write(UInt32(AACFormat.framesPerPacket))  // samples per packet
        w.write(UInt32(0))  // bytes per packet: variable
        w.write(UInt32(0))  // bytes per frame: variable
        w.write(UInt32(2))  // bytes per sample
    }

    /// Reads an `mp4a` description; the encoder delay is not in it (the edit list has it), so
    /// ``AACFormat/primingFrames`` is 0.
    package init(_ entry: SampleDescriptionAtom.Entry) throws(MovieFormatError) {
        guard entry.format == Self.format else {
            throw .invalidValue(entry.format, "'\(entry.format)' is not an AAC ('mp4a') sample description")
        }
        var r = ByteReader(entry.body, context: entry.format)
        try r.skip(8)
        let version = try r.readUInt16()
        try r.skip(18)  // revision, vendor, channels, sample size, compression ID, packet size, rate
        switch version {
        case 0: break
        case 1: try r.skip(16)
        case 2: try r.skip(36)
        default: throw .invalidValue(entry.format, "sound description version \(version) is not known")
        }
        guard let body = Self.findDescriptor(in: &r, depth: 0) else {
            throw .missingAtom("esds", in: "the 'mp4a' sample description")
        }
        let esds = try ElementaryStreamDescriptorAtom(bodyBytes: body[...])
        guard esds.objectTypeIndication == ElementaryStreamDescriptorAtom.mpeg4Audio else {
            throw .invalidValue("esds", "object type 0x\(String(esds.objectTypeIndication, radix: 16)) is not MPEG-4 audio")
        }
        aac = try AACFormat(audioSpecificConfig: esds.decoderSpecificInfo, primingFrames: 0,
                            averageBitRate: esds.averageBitRate, maxBitRate: esds.maxBitRate, bufferSize: esds.bufferSize)
    }

    /// The body of the `esds` among the extension atoms, directly or inside `wave` (one level,
    /// as writers nest it; a hostile file's deeper nesting is not followed).
    private static func findDescriptor(in r: inout ByteReader, depth: Int) -> [UInt8]? {
        for atom in readExtensionAtoms(&r) {
            if atom.type == "esds" { return atom.body }
            if atom.type == "wave", depth < 1 {
                var inner = ByteReader(atom.body, context: "wave")
                if let found = findDescriptor(in: &inner, depth: depth + 1) { return found }
            }
        }
        return nil
    }
}
