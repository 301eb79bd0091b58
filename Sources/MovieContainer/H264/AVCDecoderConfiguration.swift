/// The H.264 decoder configuration a movie stores in its `avcC` atom: the parameter sets and
/// the fields derived from them (ISO/IEC 14496-15 §5.3.3.1).
public struct AVCDecoderConfiguration: Hashable, Sendable {
    /// Sequence parameter set NAL units, header byte included, emulation prevention kept.
    public let sequenceParameterSets: [[UInt8]]
    /// Picture parameter set NAL units.
    public let pictureParameterSets: [[UInt8]]
    /// The first SPS, parsed.
    package let sps: SequenceParameterSet

    /// Creates a configuration from parameter sets as an encoder hands them out.
    ///
    /// Only SPS (type 7) and PPS (type 8) NAL units are kept; anything else, such as x264's
    /// options SEI, never goes into `avcC`.
    /// - Throws: ``MovieFormatError`` when there is no SPS or PPS, or the SPS does not parse.
    public init(parameterSets: [[UInt8]]) throws(MovieFormatError) {
        let spss = parameterSets.filter { ($0.first ?? 0) & 0x1F == 7 }
        let ppss = parameterSets.filter { ($0.first ?? 0) & 0x1F == 8 }
        guard let first = spss.first else { throw .invalidBitstream("no sequence parameter set (NAL type 7) was given for avcC") }
        guard !ppss.isEmpty else { throw .invalidBitstream("no picture parameter set (NAL type 8) was given for avcC") }
        guard spss.count <= 31, ppss.count <= 255, (spss + ppss).allSatisfy({ $0.count <= 0xFFFF }) else {
            throw .invalidBitstream("too many or too large parameter sets for avcC")
        }
        sequenceParameterSets = spss
        pictureParameterSets = ppss
        sps = try SequenceParameterSet(nalUnit: first[...])
    }

    /// The `avcC` atom body.
    public var atomBody: [UInt8] {
        var w = ByteWriter()
        let first = sequenceParameterSets[0]
        w.write(UInt8(1))  // configurationVersion
        w.write(first[1])  // AVCProfileIndication
        w.write(first[2])  // profile_compatibility
        w.write(first[3])  // AVCLevelIndication
        w.write(UInt8(0xFC | 3))  // lengthSizeMinusOne = 3: four-byte NAL lengths
        w.write(UInt8(0xE0 | UInt8(sequenceParameterSets.count)))
        for nal in sequenceParameterSets {
            w.write(UInt16(nal.count))
            w.write(contentsOf: nal)
        }
        w.write(UInt8(pictureParameterSets.count))
        for nal in pictureParameterSets {
            w.write(UInt16(nal.count))
            w.write(contentsOf: nal)
        }
        if ![66, 77, 88].contains(first[1]) {
            w.write(UInt8(0xFC | UInt8(sps.chromaFormat)))
            w.write(UInt8(0xF8 | UInt8(sps.bitDepthLuma - 8)))
            w.write(UInt8(0xF8 | UInt8(sps.bitDepthChroma - 8)))
            w.write(UInt8(0))  // numOfSequenceParameterSetExt
        }
        return w.bytes
    }
}
