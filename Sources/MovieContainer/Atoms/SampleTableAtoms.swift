/// `stts`: sample durations as runs of (count, duration) in decode order (QuickTime File
/// Format, "Time-to-Sample Atom").
package struct TimeToSampleAtom: StreamedTableAtom {
    package static let type: FourCC = "stts"
    package var entries: [(count: UInt32, duration: UInt32)]

    package init(entries: [(count: UInt32, duration: UInt32)]) { self.entries = entries }

    package func writeBody(to w: inout ByteWriter) {
        writeTableBody(entryCount: entries.count, to: &w) { w in
            for e in entries {
                w.write(e.count)
                w.write(e.duration)
            }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 8)
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append((try r.readUInt32(), try r.readUInt32())) }
    }

    package static func == (l: Self, r: Self) -> Bool { l.entries.elementsEqual(r.entries, by: ==) }
    package func hash(into h: inout Hasher) { for e in entries { h.combine(e.count); h.combine(e.duration) } }
}

/// `ctts`: composition offsets (presentation − decode time) as runs of (count, offset)
/// (QuickTime File Format, "Composition Offset Atom"). This library writes version 0 with
/// non-negative offsets; the reader accepts version 1's signed offsets too.
package struct CompositionOffsetAtom: StreamedTableAtom {
    package static let type: FourCC = "ctts"
    package var entries: [(count: UInt32, offset: Int32)]

    package init(entries: [(count: UInt32, offset: Int32)]) { self.entries = entries }


    package func writeBody(to w: inout ByteWriter) {
        writeTableBody(entryCount: entries.count, to: &w) { w in
            for e in entries {
                w.write(e.count)
                w.write(e.offset)
            }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 8)
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append((try r.readUInt32(), try r.readInt32())) }
    }

    package static func == (l: Self, r: Self) -> Bool { l.entries.elementsEqual(r.entries, by: ==) }
    package func hash(into h: inout Hasher) { for e in entries { h.combine(e.count); h.combine(e.offset) } }
}

/// `stss`: the 1-based numbers of the sync (key) samples (QuickTime File Format, "Sync Sample
/// Atom"). Absent when every sample is a sync sample.
package struct SyncSampleAtom: StreamedTableAtom {
    package static let type: FourCC = "stss"
    package var sampleNumbers: [UInt32]

    package init(sampleNumbers: [UInt32]) { self.sampleNumbers = sampleNumbers }

    package func writeBody(to w: inout ByteWriter) {
        writeTableBody(entryCount: sampleNumbers.count, to: &w) { w in
            for n in sampleNumbers { w.write(n) }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 4)
        sampleNumbers = []
        sampleNumbers.reserveCapacity(Int(count))
        for _ in 0..<count { sampleNumbers.append(try r.readUInt32()) }
    }
}

/// `stsc`: how many samples each chunk holds, as runs starting at a 1-based chunk number
/// (QuickTime File Format, "Sample-to-Chunk Atom").
package struct SampleToChunkAtom: StreamedTableAtom {
    package static let type: FourCC = "stsc"

    package struct Entry: Hashable, Sendable {
        package var firstChunk: UInt32
        package var samplesPerChunk: UInt32
        package var sampleDescriptionID: UInt32
        package init(firstChunk: UInt32, samplesPerChunk: UInt32, sampleDescriptionID: UInt32 = 1) {
            self.firstChunk = firstChunk
            self.samplesPerChunk = samplesPerChunk
            self.sampleDescriptionID = sampleDescriptionID
        }
    }

    package var entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    package func writeBody(to w: inout ByteWriter) {
        writeTableBody(entryCount: entries.count, to: &w) { w in
            for e in entries {
                w.write(e.firstChunk)
                w.write(e.samplesPerChunk)
                w.write(e.sampleDescriptionID)
            }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 12)
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            entries.append(Entry(firstChunk: try r.readUInt32(), samplesPerChunk: try r.readUInt32(),
                                 sampleDescriptionID: try r.readUInt32()))
        }
    }
}

/// `stsz`: sample sizes in bytes (QuickTime File Format, "Sample Size Atom"). When every sample
/// has the same size — PCM frames — only that size and the count are stored.
package struct SampleSizeAtom: QuickTimeAtom {
    package static let type: FourCC = "stsz"
    /// The size of every sample, or 0 when `sizes` lists them.
    package var constantSize: UInt32
    package var sampleCount: UInt32
    package var sizes: [UInt32]

    package init(constantSize: UInt32, sampleCount: UInt32) {
        self.constantSize = constantSize
        self.sampleCount = sampleCount
        self.sizes = []
    }

    package init(sizes: [UInt32]) {
        constantSize = 0
        sampleCount = UInt32(sizes.count)
        self.sizes = sizes
    }

    package func size(ofSample index: Int) -> UInt32 { constantSize != 0 ? constantSize : sizes[index] }

    /// Writes an `stsz` atom with a size per sample: `sampleCount` sizes that `writeSizes`
    /// appends, already encoded, for a writer that streams a table too long to hold as an array.
    package static func write(sampleCount: UInt32, to w: inout ByteWriter, sizes writeSizes: (inout ByteWriter) throws -> Void) throws {
        try w.writeAtom(type) { try writeBody(constantSize: 0, sampleCount: sampleCount, to: &$0, sizes: writeSizes) }
    }

    package func writeBody(to w: inout ByteWriter) {
        Self.writeBody(constantSize: constantSize, sampleCount: sampleCount, to: &w) { w in
            if constantSize == 0 { for s in sizes { w.write(s) } }
        }
    }

    /// The body's layout: version 0, no flags, the constant size (0 when sizes follow), the
    /// sample count, then any sizes.
    private static func writeBody(constantSize: UInt32, sampleCount: UInt32, to w: inout ByteWriter,
                                  sizes writeSizes: (inout ByteWriter) throws -> Void) rethrows {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(constantSize)
        w.write(sampleCount)
        try writeSizes(&w)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        constantSize = try r.readUInt32()
        sampleCount = try r.readUInt32()
        sizes = []
        if constantSize == 0 {
            try r.requireTable(count: sampleCount, entrySize: 4)
            sizes.reserveCapacity(Int(sampleCount))
            for _ in 0..<sampleCount { sizes.append(try r.readUInt32()) }
        }
    }
}

/// `stco`: 32-bit file offsets of each chunk (QuickTime File Format, "Chunk Offset Atom").
package struct ChunkOffsetAtom: StreamedTableAtom {
    package static let type: FourCC = "stco"
    package var offsets: [UInt32]

    package init(offsets: [UInt32]) { self.offsets = offsets }

    package func writeBody(to w: inout ByteWriter) {
        writeTableBody(entryCount: offsets.count, to: &w) { w in
            for o in offsets { w.write(o) }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 4)
        offsets = []
        offsets.reserveCapacity(Int(count))
        for _ in 0..<count { offsets.append(try r.readUInt32()) }
    }
}

/// `co64`: 64-bit chunk offsets, used once any offset passes 2^32 − 1 (QuickTime File Format,
/// "64-bit Chunk Offset Atom").
package struct ChunkOffset64Atom: StreamedTableAtom {
    package static let type: FourCC = "co64"
    package var offsets: [UInt64]

    package init(offsets: [UInt64]) { self.offsets = offsets }

    package func writeBody(to w: inout ByteWriter) {
        writeTableBody(entryCount: offsets.count, to: &w) { w in
            for o in offsets { w.write(o) }
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 8)
        offsets = []
        offsets.reserveCapacity(Int(count))
        for _ in 0..<count { offsets.append(try r.readUInt64()) }
    }
}

/// The body every sample table but `stsz` shares: version 0, no flags, the 32-bit entry count,
/// then the entries, which `writeEntries` appends.
/// A sample table whose entries a writer may stream behind its header instead of holding them
/// as an array: `stts`, `ctts`, `stss`, `stsc`, `stco`, `co64` (version 0, an entry count, the
/// entries).
package protocol StreamedTableAtom: QuickTimeAtom {}

extension StreamedTableAtom {
    /// Writes the atom with `entryCount` entries that `writeEntries` appends, already encoded: for
    /// a writer that streams a table too long to hold as an array.
    package static func write(entryCount: Int, to w: inout ByteWriter, entries writeEntries: (inout ByteWriter) throws -> Void) throws {
        try w.writeAtom(type) { try writeTableBody(entryCount: entryCount, to: &$0, entries: writeEntries) }
    }
}

private func writeTableBody(entryCount: Int, to w: inout ByteWriter, entries writeEntries: (inout ByteWriter) throws -> Void) rethrows {
    w.writeVersionAndFlags(version: 0, flags: 0)
    w.write(UInt32(entryCount))
    try writeEntries(&w)
}
