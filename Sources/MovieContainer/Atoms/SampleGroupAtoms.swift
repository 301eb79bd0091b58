/// `sgpd` with one `roll` entry (ISO/IEC 14496-12 §10.1, "roll recovery"): a roll distance of −1
/// says each AAC access unit needs the one before it to decode correctly, the explicit form of
/// the priming that Apple's QuickTime File Format (appendix G) describes next to the edit list.
package struct SampleGroupDescriptionAtom: QuickTimeAtom {
    package static let type: FourCC = "sgpd"
    package var groupingType: FourCC = "roll"
    package var rollDistance: Int16

    package init(rollDistance: Int16) { self.rollDistance = rollDistance }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 1, flags: 0)
        w.write(groupingType)
        w.write(UInt32(2))  // default_length: one int16 per entry
        w.write(UInt32(1))  // entry_count
        w.write(rollDistance)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, _) = try r.readVersionAndFlags()
        groupingType = try r.readFourCC()
        var length: UInt32 = 2
        if version == 1 { length = try r.readUInt32() }
        guard try r.readUInt32() >= 1 else { throw .invalidValue("sgpd", "a sample group description without entries") }
        if version == 1 && length == 0 { _ = try r.readUInt32() }  // description_length
        rollDistance = try r.readInt16()
    }
}

/// `sbgp` (ISO/IEC 14496-12 §8.9.2): which samples belong to which group description; here
/// every sample to the one `roll` entry.
package struct SampleToGroupAtom: QuickTimeAtom {
    package static let type: FourCC = "sbgp"
    package var groupingType: FourCC = "roll"
    package var sampleCount: UInt32

    package init(sampleCount: UInt32) { self.sampleCount = sampleCount }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(groupingType)
        w.write(UInt32(1))  // entry_count
        w.write(sampleCount)
        w.write(UInt32(1))  // group_description_index
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, _) = try r.readVersionAndFlags()
        groupingType = try r.readFourCC()
        if version == 1 { _ = try r.readUInt32() }  // grouping_type_parameter
        guard try r.readUInt32() >= 1 else { throw .invalidValue("sbgp", "a sample-to-group atom without entries") }
        sampleCount = try r.readUInt32()
    }
}
