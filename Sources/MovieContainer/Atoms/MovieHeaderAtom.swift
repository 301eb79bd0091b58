/// `mvhd`: the movie's time scale, duration and matrix (QuickTime File Format, "Movie Header
/// Atom"). Version 1 widens times and duration to 64 bits and is written only when needed.
package struct MovieHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "mvhd"
    package var creationTime: QuickTimeTimestamp
    package var modificationTime: QuickTimeTimestamp
    package var timescale: UInt32
    /// The duration of the longest track, in `timescale` units.
    package var duration: UInt64
    /// 16.16 fixed point; 1.0 plays at normal speed.
    package var preferredRate: Int32 = 0x0001_0000
    /// 8.8 fixed point; 1.0 is full volume.
    package var preferredVolume: Int16 = 0x0100
    package var matrix: TransformationMatrix = .identity
    package var nextTrackID: UInt32

    package init(creationTime: QuickTimeTimestamp, modificationTime: QuickTimeTimestamp, timescale: UInt32,
                duration: UInt64, nextTrackID: UInt32) {
        self.creationTime = creationTime
        self.modificationTime = modificationTime
        self.timescale = timescale
        self.duration = duration
        self.nextTrackID = nextTrackID
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
        w.write(preferredRate)
        w.write(preferredVolume)
        w.writeZeros(10)
        matrix.write(to: &w)
        w.writeZeros(24)  // preview time/duration, poster time, selection time/duration, current time
        w.write(nextTrackID)
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
        preferredRate = try r.readInt32()
        preferredVolume = try r.readInt16()
        try r.skip(10)
        matrix = try TransformationMatrix.read(from: &r)
        try r.skip(24)
        nextTrackID = try r.readUInt32()
    }
}
