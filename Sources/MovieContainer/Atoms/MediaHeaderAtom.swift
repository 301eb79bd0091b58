/// `mdhd`: the media's time scale and duration (QuickTime File Format, "Media Header Atom").
package struct MediaHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "mdhd"
    package var creationTime: QuickTimeTimestamp
    package var modificationTime: QuickTimeTimestamp
    package var timescale: UInt32
    /// The sum of all sample durations, in `timescale` units.
    package var duration: UInt64
    /// A packed ISO 639-2/T code (`und` = 0x55C4) or a Macintosh language code.
    package var language: UInt16 = 0x55C4
    package var quality: UInt16 = 0

    package init(creationTime: QuickTimeTimestamp, timescale: UInt32, duration: UInt64) {
        self.creationTime = creationTime
        self.modificationTime = creationTime
        self.timescale = timescale
        self.duration = duration
    }

    package var version: UInt8 {
        fullAtomVersion(creationTime.secondsSince1904, modificationTime.secondsSince1904, duration)
    }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: version, flags: 0)
        if version == 1 {
            w.write(creationTime.secondsSince1904)
            w.write(modificationTime.secondsSince1904)
            w.write(timescale)
            w.write(duration)
        } else {
            w.write(UInt32(creationTime.secondsSince1904))
            w.write(UInt32(modificationTime.secondsSince1904))
            w.write(timescale)
            w.write(UInt32(duration))
        }
        w.write(language)
        w.write(quality)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, _) = try r.readVersionAndFlags()
        if version == 1 {
            creationTime = QuickTimeTimestamp(secondsSince1904: try r.readUInt64())
            modificationTime = QuickTimeTimestamp(secondsSince1904: try r.readUInt64())
            timescale = try r.readUInt32()
            duration = try r.readUInt64()
        } else {
            creationTime = QuickTimeTimestamp(secondsSince1904: UInt64(try r.readUInt32()))
            modificationTime = QuickTimeTimestamp(secondsSince1904: UInt64(try r.readUInt32()))
            timescale = try r.readUInt32()
            duration = UInt64(try r.readUInt32())
        }
        language = try r.readUInt16()
        quality = try r.readUInt16()
    }
}
