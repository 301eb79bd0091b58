/// `elst`: maps movie time to media time (QuickTime File Format, "Edit List Atom"). One edit
/// whose media time is the first composition offset hides the B-frame delay; an edit with media
/// time −1 is an empty edit (a gap).
package struct EditListAtom: QuickTimeAtom {
    package static let type: FourCC = "elst"

    package struct Entry: Hashable, Sendable {
        /// In the movie's (mvhd) time scale.
        package var segmentDuration: UInt64
        /// In the media's (mdhd) time scale; −1 for an empty edit.
        package var mediaTime: Int64
        /// 16.16 fixed point; 1.0 for normal playback.
        package var mediaRate: Int32 = 0x0001_0000

        package init(segmentDuration: UInt64, mediaTime: Int64, mediaRate: Int32 = 0x0001_0000) {
            self.segmentDuration = segmentDuration
            self.mediaTime = mediaTime
            self.mediaRate = mediaRate
        }
    }

    package var entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    package var version: UInt8 {
        entries.contains {
            $0.segmentDuration > UInt64(UInt32.max) || $0.mediaTime > Int64(Int32.max) || $0.mediaTime < Int64(Int32.min)
        } ? 1 : 0
    }

    package func writeBody(to w: inout ByteWriter) {
        let version = self.version
        w.writeVersionAndFlags(version: version, flags: 0)
        w.write(UInt32(entries.count))
        for e in entries {
            if version == 1 {
                w.write(e.segmentDuration)
                w.write(e.mediaTime)
            } else {
                w.write(UInt32(e.segmentDuration))
                w.write(Int32(e.mediaTime))
            }
            w.write(e.mediaRate)
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, _) = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: version == 1 ? 20 : 12)
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            if version == 1 {
                entries.append(Entry(segmentDuration: try r.readUInt64(), mediaTime: try r.readInt64(), mediaRate: try r.readInt32()))
            } else {
                entries.append(Entry(segmentDuration: UInt64(try r.readUInt32()), mediaTime: Int64(try r.readInt32()),
                                     mediaRate: try r.readInt32()))
            }
        }
    }
}
