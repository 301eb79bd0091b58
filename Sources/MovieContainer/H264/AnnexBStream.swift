/// Splits an H.264 Annex-B byte stream into NAL units and groups them into access units with
/// their presentation order, so a raw `.264` file can be muxed (ITU-T H.264 Annex B, §7.4.1.2.3,
/// §8.2.1).
public struct AnnexBStream: Sendable {
    /// One coded picture with its NAL units.
    public struct AccessUnit: Sendable {
        /// NAL units of the picture in stream order, without start codes. Parameter sets and
        /// access unit delimiters are left out: they belong in `avcC`.
        public var nalUnits: [[UInt8]]
        /// A Boolean value that indicates whether the picture is an IDR picture.
        public var isSync: Bool
        /// The picture's position in display order, counted from the start of the stream.
        public var presentationIndex: Int

        /// The sample as a movie stores it: each NAL unit behind a four-byte big-endian length.
        public var lengthPrefixed: [UInt8] {
            var w = ByteWriter(capacity: nalUnits.reduce(0) { $0 + $1.count + 4 })
            for nal in nalUnits {
                w.write(UInt32(nal.count))
                w.write(contentsOf: nal)
            }
            return w.bytes
        }
    }

    /// The stream's parameter sets (first SPS and PPS seen).
    public let configuration: AVCDecoderConfiguration
    /// The access units in decode order.
    public let accessUnits: [AccessUnit]
    /// How many frames the decoder holds back before the first one is shown: the largest
    /// `decode index − presentation index`.
    public let reorderDepth: Int

    /// Splits `bytes` into NAL units at 3- and 4-byte start codes.
    public static func nalUnits(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start: Int? = nil
        var i = 0
        let n = bytes.count
        while i + 2 < n {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                if let s = start {
                    var end = i
                    while end > s, bytes[end - 1] == 0 { end -= 1 }  // trailing zeros, 4-byte start code
                    units.append(bytes[s..<end])
                }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start, s < n { units.append(bytes[s..<n]) }
        return units.filter { !$0.isEmpty }
    }

    /// Parses an Annex-B stream.
    /// - Throws: ``MovieFormatError`` when the stream has no SPS/PPS, no pictures, or a slice
    ///   header that does not parse.
    public init(annexB bytes: [UInt8]) throws(MovieFormatError) {
        let units = Self.nalUnits(in: bytes)
        var parameterSets: [[UInt8]] = []
        for unit in units where [7, 8].contains(unit[unit.startIndex] & 0x1F) {
            let type = unit[unit.startIndex] & 0x1F
            if !parameterSets.contains(where: { $0[0] & 0x1F == type }) { parameterSets.append(Array(unit)) }
        }
        configuration = try AVCDecoderConfiguration(parameterSets: parameterSets)
        let sps = configuration.sps

        struct Picture { var nals: [[UInt8]]; var sync: Bool; var poc: Int; var idrPeriod: Int }
        var pictures: [Picture] = []
        var pending: [[UInt8]] = []  // SEI and others seen before the next picture's first slice
        var pocMSB = 0, prevPOCLSB = 0, idrPeriod = -1

        for unit in units {
            let header = unit[unit.startIndex]
            let type = header & 0x1F
            switch type {
            case 7, 8, 9:
                continue  // parameter sets live in avcC; delimiters are not needed in a movie
            case 1, 5:
                var r = BitReader(nalPayload: unit.dropFirst())
                let firstMB = try r.ue()
                _ = try r.ue()  // slice_type
                _ = try r.ue()  // pic_parameter_set_id
                if sps.separateColourPlane { _ = try r.bits(2) }
                _ = try r.bits(Int(sps.log2MaxFrameNum))  // frame_num
                if !sps.frameMBsOnly, try r.flag() { _ = try r.flag() }
                let isIDR = type == 5
                if isIDR { _ = try r.ue() }
                if firstMB == 0 || pictures.isEmpty {
                    if isIDR {
                        idrPeriod += 1
                        pocMSB = 0
                        prevPOCLSB = 0
                    }
                    let poc: Int
                    switch sps.pictureOrderCountType {
                    case 0:
                        let lsb = Int(try r.bits(Int(sps.log2MaxPictureOrderCountLSB)))
                        let maxLSB = 1 << Int(sps.log2MaxPictureOrderCountLSB)
                        if lsb < prevPOCLSB && prevPOCLSB - lsb >= maxLSB / 2 {
                            pocMSB += maxLSB
                        } else if lsb > prevPOCLSB && lsb - prevPOCLSB > maxLSB / 2 {
                            pocMSB -= maxLSB
                        }
                        poc = pocMSB + lsb
                        if header & 0x60 != 0 { prevPOCLSB = lsb }  // reference picture
                    default:
                        // Types 1 and 2 as x264 writes them: output order is decode order.
                        poc = pictures.count
                    }
                    if idrPeriod < 0 { idrPeriod = 0 }
                    pictures.append(Picture(nals: pending + [Array(unit)], sync: isIDR, poc: poc, idrPeriod: idrPeriod))
                    pending = []
                } else {
                    pictures[pictures.count - 1].nals.append(Array(unit))
                }
            default:
                pending.append(Array(unit))
            }
        }
        guard !pictures.isEmpty else { throw .invalidBitstream("the stream holds no coded pictures") }

        // Display order: by IDR period, then picture order count.
        let displayOrder = pictures.indices.sorted {
            (pictures[$0].idrPeriod, pictures[$0].poc, $0) < (pictures[$1].idrPeriod, pictures[$1].poc, $1)
        }
        var presentationIndex = [Int](repeating: 0, count: pictures.count)
        for (display, decode) in displayOrder.enumerated() { presentationIndex[decode] = display }
        accessUnits = pictures.indices.map {
            AccessUnit(nalUnits: pictures[$0].nals, isSync: pictures[$0].sync, presentationIndex: presentationIndex[$0])
        }
        reorderDepth = pictures.indices.map { $0 - presentationIndex[$0] }.max() ?? 0
    }
}
