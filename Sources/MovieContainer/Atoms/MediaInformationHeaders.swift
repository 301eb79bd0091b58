/// `vmhd`: the video media information header (QuickTime File Format, "Video Media Information
/// Header Atom"). Flags are always 1; graphics mode 0x40 is dither copy.
package struct VideoMediaHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "vmhd"
    package var graphicsMode: UInt16 = 0x40
    package var opcolor: [UInt16] = [0x8000, 0x8000, 0x8000]

    package init() {}

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 1)
        w.write(graphicsMode)
        for c in opcolor { w.write(c) }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        graphicsMode = try r.readUInt16()
        opcolor = [try r.readUInt16(), try r.readUInt16(), try r.readUInt16()]
    }
}

/// `smhd`: the sound media information header (QuickTime File Format, "Sound Media Information
/// Header Atom").
package struct SoundMediaHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "smhd"
    /// 8.8 fixed point; 0 is centre.
    package var balance: Int16 = 0

    package init() {}

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(balance)
        w.write(UInt16(0))
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        balance = try r.readInt16()
        try r.skip(2)
    }
}

/// `dref`: where the media data lives (QuickTime File Format, "Data Reference Atoms"). This
/// library writes one `url ` entry with flag 1: the data is in this same file.
package struct DataReferenceAtom: QuickTimeAtom {
    package static let type: FourCC = "dref"
    /// Number of entries.
    package var entryCount: UInt32 = 1

    package init() {}

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(UInt32(1))
        w.write(UInt32(12))
        w.write("url " as FourCC)
        w.writeVersionAndFlags(version: 0, flags: 1)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        entryCount = try r.readUInt32()
    }
}
