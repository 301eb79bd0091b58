/// `tkhd`: a track's identity, duration, volume, display matrix and size (QuickTime File
/// Format, "Track Header Atom"). The matrix holds the capture orientation; width and height are
/// the encoded, pre-rotation size.
package struct TrackHeaderAtom: QuickTimeAtom {
    package static let type: FourCC = "tkhd"

    /// Track flags: 0x1 enabled, 0x2 used in the movie, 0x4 in preview, 0x8 in poster.
    package struct Flags: OptionSet, Hashable, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let enabled = Flags(rawValue: 0x1)
        package static let inMovie = Flags(rawValue: 0x2)
        package static let inPreview = Flags(rawValue: 0x4)
        package static let inPoster = Flags(rawValue: 0x8)
    }

    package var flags: Flags = [.enabled, .inMovie]
    package var creationTime: QuickTimeTimestamp
    package var modificationTime: QuickTimeTimestamp
    package var trackID: UInt32
    /// In the movie's (mvhd) time scale.
    package var duration: UInt64
    package var layer: Int16 = 0
    package var alternateGroup: Int16 = 0
    /// 8.8 fixed point: 1.0 (0x0100) for sound, 0 for video.
    package var volume: Int16
    package var matrix: TransformationMatrix
    /// 16.16 fixed point.
    package var width: UInt32
    /// 16.16 fixed point.
    package var height: UInt32

    package init(trackID: UInt32, creationTime: QuickTimeTimestamp, duration: UInt64, volume: Int16,
                matrix: TransformationMatrix, width: UInt32, height: UInt32) {
        self.trackID = trackID
        self.creationTime = creationTime
        self.modificationTime = creationTime
        self.duration = duration
        self.volume = volume
        self.matrix = matrix
        self.width = width
        self.height = height
    }

    package var version: UInt8 {
        fullAtomVersion(creationTime.secondsSince1904, modificationTime.secondsSince1904, duration)
    }

    /// Where the 36 matrix bytes start, counted from the start of the atom (its size field),
    /// for a header of the given version.
    package static func matrixOffset(version: UInt8) -> Int { version == 1 ? 60 : 48 }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: version, flags: flags.rawValue)
        if version == 1 {
            w.write(creationTime.secondsSince1904)
            w.write(modificationTime.secondsSince1904)
            w.write(trackID)
            w.write(UInt32(0))
            w.write(duration)
        } else {
            w.write(UInt32(creationTime.secondsSince1904))
            w.write(UInt32(modificationTime.secondsSince1904))
            w.write(trackID)
            w.write(UInt32(0))
            w.write(UInt32(duration))
        }
        w.writeZeros(8)
        w.write(layer)
        w.write(alternateGroup)
        w.write(volume)
        w.write(UInt16(0))
        matrix.write(to: &w)
        w.write(width)
        w.write(height)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, flags) = try r.readVersionAndFlags()
        self.flags = Flags(rawValue: flags)
        if version == 1 {
            creationTime = QuickTimeTimestamp(secondsSince1904: try r.readUInt64())
            modificationTime = QuickTimeTimestamp(secondsSince1904: try r.readUInt64())
            trackID = try r.readUInt32()
            try r.skip(4)
            duration = try r.readUInt64()
        } else {
            creationTime = QuickTimeTimestamp(secondsSince1904: UInt64(try r.readUInt32()))
            modificationTime = QuickTimeTimestamp(secondsSince1904: UInt64(try r.readUInt32()))
            trackID = try r.readUInt32()
            try r.skip(4)
            duration = UInt64(try r.readUInt32())
        }
        try r.skip(8)
        layer = try r.readInt16()
        alternateGroup = try r.readInt16()
        volume = try r.readInt16()
        try r.skip(2)
        matrix = try TransformationMatrix.read(from: &r)
        width = try r.readUInt32()
        height = try r.readUInt32()
    }
}
