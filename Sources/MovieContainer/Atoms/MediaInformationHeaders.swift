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

/// `gmhd`: the base media information header of a track that is neither video nor sound
/// (QuickTime File Format, "Base Media Information Header Atom"), such as timed metadata. It
/// holds `gmin`: version and flags 0, graphics mode dither copy, mid-grey opcolor, balance 0.
package struct BaseMediaHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "gmhd"

    package init() {}

    package func writeBody(to w: inout ByteWriter) {
        w.write(UInt32(24))
        w.write("gmin" as FourCC)
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(UInt16(0x40))
        for _ in 0..<3 { w.write(UInt16(0x8000)) }
        w.write(Int16(0))  // balance
        w.write(UInt16(0))  // reserved
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        try r.skip(r.remaining)
    }
}

/// `tref` holding one `cdsc` reference: the tracks a timed metadata track describes
/// (QuickTime File Format, "Track Reference Atoms").
package struct ContentDescribesReferenceAtom: QuickTimeAtom {
    package static let type: FourCC = "tref"
    package var trackIDs: [UInt32]

    package init(trackIDs: [UInt32]) { self.trackIDs = trackIDs }

    package func writeBody(to w: inout ByteWriter) {
        w.write(UInt32(8 + 4 * trackIDs.count))
        w.write("cdsc" as FourCC)
        for id in trackIDs { w.write(id) }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        trackIDs = []
        for (type, var body) in try readChildAtoms(&r, in: Self.type) where type == "cdsc" {
            while body.remaining >= 4 { trackIDs.append(try body.readUInt32()) }
        }
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
