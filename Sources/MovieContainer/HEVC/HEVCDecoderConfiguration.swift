/// The HEVC decoder configuration a movie stores in its `hvcC` atom: the parameter sets and the
/// fields derived from them (ISO/IEC 14496-15 §8.3.3.1), complete as Apple's 'hvc1' requires.
public struct HEVCDecoderConfiguration: Hashable, Sendable {
    /// Video parameter set NAL units, two-byte header included, emulation prevention kept.
    public let videoParameterSets: [[UInt8]]
    /// Sequence parameter set NAL units.
    public let sequenceParameterSets: [[UInt8]]
    /// Picture parameter set NAL units.
    public let pictureParameterSets: [[UInt8]]
    /// The first SPS, parsed.
    package let sps: HEVCSequenceParameterSet
    /// The first PPS, parsed.
    package let pps: HEVCPictureParameterSet
    /// The general profile, tier and level over every VPS and SPS: flags ANDed, the highest
    /// profile, tier and level.
    package let profileTierLevel: HEVCProfileTierLevel
    /// The smallest `min_spatial_segmentation_idc` of the SPSs' VUIs (0 when none states it).
    package let minSpatialSegmentation: UInt32
    /// 0 mixed or unknown, 1 slices, 2 tiles, 3 wavefront (entropy coding sync).
    package let parallelismType: UInt8
    package let temporalLayerCount: Int
    package let isTemporalIDNested: Bool

    /// Creates a configuration from parameter sets as an encoder hands them out or an Annex B
    /// stream carries them.
    ///
    /// Only VPS (type 32), SPS (33) and PPS (34) NAL units are kept; SEI and anything else stays
    /// in the samples.
    /// - Throws: ``MovieFormatError`` when a kind is missing or a parameter set does not parse.
    public init(parameterSets: [[UInt8]]) throws(MovieFormatError) {
        func ofType(_ type: UInt8) -> [[UInt8]] { parameterSets.filter { (($0.first ?? 0) >> 1) & 0x3F == type } }
        let vpss = ofType(32), spss = ofType(33), ppss = ofType(34)
        guard !vpss.isEmpty else { throw .invalidBitstream("no video parameter set (NAL type 32) was given for hvcC", codec: "HEVC") }
        guard !spss.isEmpty else { throw .invalidBitstream("no sequence parameter set (NAL type 33) was given for hvcC", codec: "HEVC") }
        guard !ppss.isEmpty else { throw .invalidBitstream("no picture parameter set (NAL type 34) was given for hvcC", codec: "HEVC") }
        guard (vpss + spss + ppss).allSatisfy({ $0.count <= 0xFFFF }), vpss.count <= 16, spss.count <= 16, ppss.count <= 64 else {
            throw .invalidBitstream("too many or too large parameter sets for hvcC", codec: "HEVC")
        }
        videoParameterSets = vpss
        sequenceParameterSets = spss
        pictureParameterSets = ppss
        let parsedSPS = try spss.map { (nal) throws(MovieFormatError) in try HEVCSequenceParameterSet(nalUnit: nal[...]) }
        let parsedVPS = try vpss.map { (nal) throws(MovieFormatError) in try Self.readVPS(nal) }
        sps = parsedSPS[0]
        var ptl = parsedSPS[0].profileTierLevel
        for other in parsedVPS.map(\.ptl) + parsedSPS.map(\.profileTierLevel) {
            ptl.isHighTier = ptl.isHighTier || other.isHighTier
            ptl.profileIDC = max(ptl.profileIDC, other.profileIDC)
            ptl.compatibilityFlags &= other.compatibilityFlags
            ptl.constraintFlags &= other.constraintFlags
            ptl.levelIDC = max(ptl.levelIDC, other.levelIDC)
        }
        profileTierLevel = ptl
        let segmentation = parsedSPS.map(\.minSpatialSegmentation).filter { $0 > 0 }.min() ?? 0
        minSpatialSegmentation = segmentation
        pps = try HEVCPictureParameterSet(nalUnit: ppss[0])
        parallelismType = segmentation == 0 ? 0 : pps.parallelismType
        temporalLayerCount = (parsedVPS.map(\.maxSubLayersMinus1) + parsedSPS.map(\.maxSubLayersMinus1)).max()! + 1
        isTemporalIDNested = parsedVPS.allSatisfy(\.nested) && parsedSPS.allSatisfy(\.temporalIDNesting)
    }

    /// Reads the parameter sets of an `hvcC` atom body and derives the rest from them again.
    /// - Throws: ``MovieFormatError`` when the record is cut short or its parameter sets do not parse.
    public init(atomBody: [UInt8]) throws(MovieFormatError) {
        var r = ByteReader(atomBody, context: "hvcC")
        try r.skip(22)
        let arrays = try r.readUInt8()
        var units: [[UInt8]] = []
        for _ in 0..<arrays {
            _ = try r.readUInt8()  // completeness and NAL unit type
            for _ in 0..<(try r.readUInt16()) { units.append(try r.readBytes(Int(try r.readUInt16()))) }
        }
        try self.init(parameterSets: units)
    }

    /// The `hvcC` atom body: every array complete, four-byte NAL unit lengths.
    public var atomBody: [UInt8] {
        var w = ByteWriter()
        let ptl = profileTierLevel
        w.write(UInt8(1))  // configurationVersion
        w.write(ptl.profileSpace << 6 | (ptl.isHighTier ? 0x20 : 0) | ptl.profileIDC)
        w.write(ptl.compatibilityFlags)
        w.write(UInt16(truncatingIfNeeded: ptl.constraintFlags >> 32))
        w.write(UInt32(truncatingIfNeeded: ptl.constraintFlags))
        w.write(ptl.levelIDC)
        w.write(UInt16(0xF000) | UInt16(minSpatialSegmentation))
        w.write(0xFC | parallelismType)
        w.write(UInt8(0xFC | sps.chromaFormat))
        w.write(UInt8(0xF8 | (sps.bitDepthLuma - 8)))
        w.write(UInt8(0xF8 | (sps.bitDepthChroma - 8)))
        w.write(UInt16(0))  // avgFrameRate: unspecified
        // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3
        w.write(UInt8(temporalLayerCount) << 3 | (isTemporalIDNested ? 0x04 : 0) | 3)
        w.write(UInt8(3))
        for (type, units) in [(UInt8(32), videoParameterSets), (33, sequenceParameterSets), (34, pictureParameterSets)] {
            w.write(0x80 | type)  // array_completeness = 1
            w.write(UInt16(units.count))
            for unit in units {
                w.write(UInt16(unit.count))
                w.write(contentsOf: unit)
            }
        }
        return w.bytes
    }

    /// The codecs parameter of a MIME type for the stream (ISO/IEC 14496-15 Annex E), such as
    /// `hvc1.1.6.L93.B0`.
    public var codecString: String { Self.codecString(profileTierLevel) }

    /// The codecs parameter for a stream of profile, tier and level `ptl`.
    package static func codecString(_ ptl: HEVCProfileTierLevel) -> String {
        let space = ["", "A", "B", "C"][Int(ptl.profileSpace & 3)]
        let compatibility = String(ptl.compatibilityFlags.bitSwapped, radix: 16, uppercase: true)
        var constraints = (0..<6).map { UInt8(truncatingIfNeeded: ptl.constraintFlags >> (40 - 8 * $0)) }
        while constraints.last == 0 { constraints.removeLast() }
        let parts = ["hvc1", "\(space)\(ptl.profileIDC)", compatibility, "\(ptl.isHighTier ? "H" : "L")\(ptl.levelIDC)"]
            + constraints.map { String($0, radix: 16, uppercase: true) }
        return parts.joined(separator: ".")
    }

    /// The VPS fields `hvcC` takes: its profile, tier and level, sub-layers and nesting.
    private static func readVPS(_ nal: [UInt8]) throws(MovieFormatError) -> (ptl: HEVCProfileTierLevel, maxSubLayersMinus1: Int, nested: Bool) {
        var r = BitReader(nalPayload: nal.dropFirst(2))
        r.codec = "HEVC"
        _ = try r.bits(12)  // vps_video_parameter_set_id, base layer flags, vps_max_layers_minus1
        let subLayers = Int(try r.bits(3))
        guard subLayers < 7 else { throw .invalidBitstream("vps_max_sub_layers_minus1 \(subLayers) is out of range", codec: "HEVC") }
        let nested = try r.flag()
        _ = try r.bits(16)  // vps_reserved_0xffff_16bits
        return (try HEVCProfileTierLevel(&r, maxSubLayersMinus1: subLayers), subLayers, nested)
    }
}

extension UInt32 {
    /// The bits in reverse order: bit 31 becomes bit 0.
    var bitSwapped: UInt32 {
        var value = self, result: UInt32 = 0
        for _ in 0..<32 {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}
