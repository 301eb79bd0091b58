/// A sound sample description for LPCM (QuickTime File Format, "Sound Sample Descriptions").
///
/// 16-bit integer audio at up to 65535 Hz in one or two channels is written as version 0
/// `sowt` (little-endian) or `twos` (big-endian); everything else as version 2 `lpcm`, whose
/// rate is a 64-bit float. Mono and stereo get a `chan` atom.
package struct SoundSampleEntry: Hashable, Sendable {
    package var pcm: PCMFormat

    package init(pcm: PCMFormat) { self.pcm = pcm }

    /// The sample description format this entry is written as.
    package var format: FourCC {
        if usesVersion0 { return pcm.isBigEndian ? "twos" : "sowt" }
        return "lpcm"
    }

    private var usesVersion0: Bool {
        pcm.bitsPerChannel == 16 && !pcm.isFloat && pcm.sampleRate <= 65535 && pcm.channelCount <= 2
    }

    /// CoreAudio LPCM format flags: float 0x1, big-endian 0x2, signed integer 0x4, packed 0x8.
    package var formatSpecificFlags: UInt32 {
        (pcm.isFloat ? 0x1 : 0x4) | (pcm.isBigEndian ? 0x2 : 0) | 0x8
    }

    package var descriptionEntry: SampleDescriptionAtom.Entry {
        var w = ByteWriter(capacity: 96)
        w.writeZeros(6)
        w.write(UInt16(1))  // data reference index
        if usesVersion0 {
            w.write(UInt16(0))  // version
            w.write(UInt16(0))  // revision level
            w.write(UInt32(0))  // vendor
            w.write(pcm.channelCount)
            w.write(UInt16(16))  // sample size
            w.write(Int16(0))  // compression ID
            w.write(UInt16(0))  // packet size
            w.write(pcm.sampleRate << 16)  // 16.16
        } else {
            Self.writeVersion2Fields(to: &w, sampleRate: pcm.sampleRate, channelCount: pcm.channelCount,
                                     bitsPerChannel: UInt32(pcm.bitsPerChannel), flags: formatSpecificFlags,
                                     bytesPerPacket: UInt32(pcm.bytesPerFrame), framesPerPacket: 1)
        }
        if pcm.channelCount <= 2 {
            let chan = ChannelLayoutAtom(layoutTag: pcm.channelCount == 1 ? ChannelLayoutAtom.mono : ChannelLayoutAtom.stereo)
            w.write(contentsOf: chan.encoded)
        }
        return .init(format: format, body: w.bytes)
    }

    /// Writes the fixed fields of a version 2 sound description (QuickTime File Format, "Sound
    /// Sample Description (Version 2)"): the version 0 fields as constants, then the 64-bit
    /// float rate, the channels, and the packet layout (0 where compressed or variable).
    static func writeVersion2Fields(to w: inout ByteWriter, sampleRate: UInt32, channelCount: UInt16, bitsPerChannel: UInt32,
                                    flags: UInt32, bytesPerPacket: UInt32, framesPerPacket: UInt32) {
        w.write(UInt16(2))  // version
        w.write(UInt16(0))  // revision level
        w.write(UInt32(0))  // vendor
        w.write(UInt16(3))  // always 3
        w.write(UInt16(16))  // always 16
        w.write(Int16(-2))  // always -2
        w.write(UInt16(0))  // always 0
        w.write(UInt32(0x0001_0000))  // always 65536
        w.write(UInt32(72))  // sizeOfStructOnly
        w.write(Double(sampleRate).bitPattern)
        w.write(UInt32(channelCount))
        w.write(UInt32(0x7F00_0000))
        w.write(bitsPerChannel)
        w.write(flags)
        w.write(bytesPerPacket)  // constBytesPerAudioPacket
        w.write(framesPerPacket)  // constLPCMFramesPerAudioPacket
    }

    /// The sample description formats that hold uncompressed PCM.
    static let pcmFormats: Set<FourCC> = ["sowt", "twos", "lpcm", "in24", "in32", "fl32", "fl64", "raw "]

    /// Reads a `sowt`, `twos`, `lpcm` or other PCM sound description.
    /// - Throws: ``MovieFormatError`` for a compressed format such as `mp4a`.
    package init(_ entry: SampleDescriptionAtom.Entry) throws(MovieFormatError) {
        guard Self.pcmFormats.contains(entry.format) else {
            throw .invalidValue(entry.format, "'\(entry.format)' is not an uncompressed PCM sound description")
        }
        var r = ByteReader(entry.body, context: entry.format)
        try r.skip(8)
        let version = try r.readUInt16()
        try r.skip(6)
        if version == 2 {
            try r.skip(12)  // always3, always16, alwaysMinus2, always0 (u16 each), always65536 (u32)
            try r.skip(4)  // sizeOfStructOnly
            let rate = Double(bitPattern: try r.readUInt64())
            let channels = try r.readUInt32()
            try r.skip(4)
            let bits = try r.readUInt32()
            let flags = try r.readUInt32()
            guard rate.isFinite, rate >= 1, rate < 4_294_967_296, channels >= 1, channels <= 0xFFFF, bits <= 64 else {
                throw .invalidValue(entry.format, "version 2 sound description has rate \(rate), \(channels) channels, \(bits) bits")
            }
            pcm = PCMFormat(sampleRate: UInt32(rate), channelCount: UInt16(channels), bitsPerChannel: UInt16(bits),
                            isFloat: flags & 1 != 0, isBigEndian: flags & 2 != 0)
            // kAudioFormatFlagIsSignedInteger (4) clear on integer samples: offset binary.
            pcm.isUnsigned = flags & 1 == 0 && flags & 4 == 0
        } else {
            let channels = try r.readUInt16()
            let bits = try r.readUInt16()
            try r.skip(4)
            let rate = try r.readUInt32() >> 16
            pcm = PCMFormat(sampleRate: rate, channelCount: channels, bitsPerChannel: bits,
                            isFloat: entry.format == "fl32" || entry.format == "fl64",
                            isBigEndian: entry.format == "twos" || entry.format == "in24" || entry.format == "in32")
            // QuickTime's 'raw ' is unsigned offset binary; 'twos' and 'sowt' are signed.
            pcm.isUnsigned = entry.format == "raw "
        }
    }
}

/// `chan`: the audio channel layout (QuickTime File Format, "Audio Channel Layout Atom"), a
/// big-endian CoreAudio `AudioChannelLayout` behind a full-atom header.
package struct ChannelLayoutAtom: QuickTimeAtom {
    package static let type: FourCC = "chan"
    /// `kAudioChannelLayoutTag_Mono`: (100 << 16) | 1.
    package static let mono: UInt32 = 100 << 16 | 1
    /// `kAudioChannelLayoutTag_Stereo`: (101 << 16) | 2.
    package static let stereo: UInt32 = 101 << 16 | 2

    package var layoutTag: UInt32
    package var channelBitmap: UInt32 = 0

    package init(layoutTag: UInt32) { self.layoutTag = layoutTag }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(layoutTag)
        w.write(channelBitmap)
        w.write(UInt32(0))  // number of channel descriptions
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        layoutTag = try r.readUInt32()
        channelBitmap = try r.readUInt32()
    }
}
