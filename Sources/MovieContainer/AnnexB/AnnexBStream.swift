/// Splits an H.264 or HEVC Annex-B byte stream into NAL units and groups them into access units
/// with their presentation order, so a raw `.264` or `.265` file can be muxed (ITU-T H.264 Annex
/// B, §7.4.1.2.3, §8.2.1; ITU-T H.265 §7.4.2.4.4, §8.3.1).
///
/// The stream keeps its bytes and describes each NAL unit by its position in them, so parsing
/// copies nothing but the parameter sets; a muxer can hand the units' memory straight to the
/// file system.
package struct AnnexBStream: Sendable {
    /// One coded picture with its NAL units.
    package struct AccessUnit: Sendable {
        /// Where the picture's NAL units lie in ``AnnexBStream/bytes``, start codes excluded, in
        /// stream order. Parameter sets and access unit delimiters are left out: they belong in
        /// `avcC` or `hvcC`.
        package let nalUnitRanges: ArraySlice<Range<Int>>
        /// A Boolean value that indicates whether the picture is a random access point: an IDR
        /// picture, or an HEVC IRAP picture.
        package var isSync: Bool
        /// The picture's position in display order, counted from the start of the stream.
        package var presentationIndex: Int
        /// The stream's bytes, which ``nalUnitRanges`` index.
        let bytes: ImmutableBytes

        /// NAL units of the picture in stream order, without start codes: copies of
        /// ``nalUnitRanges``.
        package var nalUnits: [[UInt8]] {
            bytes.withUnsafeBytes { buffer in nalUnitRanges.map { Array(buffer[$0]) } }
        }

        /// The size of the sample as a movie stores it: each NAL unit plus its four-byte length.
        package var lengthPrefixedCount: Int {
            nalUnitRanges.reduce(0) { $0 + $1.count + 4 }
        }

        /// The sample as a movie stores it: each NAL unit behind a four-byte big-endian length.
        package var lengthPrefixed: [UInt8] {
            bytes.withUnsafeBytes { buffer in
                var w = ByteWriter(capacity: lengthPrefixedCount)
                for range in nalUnitRanges {
                    w.write(UInt32(range.count))
                    w.write(contentsOf: buffer[range])
                }
                return w.bytes
            }
        }
    }

    /// The stream as it was given: what the access units' ranges index.
    package let bytes: ImmutableBytes
    /// The stream's parameter sets (the first of each kind seen).
    package let configuration: VideoDecoderConfiguration
    /// The access units in decode order.
    package let accessUnits: [AccessUnit]
    /// How many frames the decoder holds back before the first one is shown: the largest
    /// `decode index − presentation index`.
    package let reorderDepth: Int

    /// Splits `bytes` into NAL units at 3- and 4-byte start codes.
    package static func nalUnits(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.withUnsafeBytes { nalUnitRanges(in: $0) }.map { bytes[$0] }
    }

    /// Finds the NAL units in `buffer`: the bytes between one `00 00 01` start code and the next
    /// (or the end), without the zero bytes before a start code (the first byte of a four-byte
    /// start code, `trailing_zero_8bits`). Empty units are left out.
    ///
    /// - Complexity: O(*n*), sixteen bytes at a time.
    package static func nalUnitRanges(in buffer: UnsafeRawBufferPointer) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var scanner = UnitScanner()
        scanner.finish(buffer, into: &units)
        return units
    }

    /// Finds NAL units a piece at a time, for a reader that works on the first units while the
    /// rest of the stream is still unread: ``scan(_:upTo:into:)`` looks at the bytes before a
    /// limit and reports the units that end there, ``finish(_:into:)`` the last one. Together
    /// they find exactly what ``nalUnitRanges(in:)`` finds, wherever the limits fall.
    package struct UnitScanner: Sendable {
        /// Where the current unit began; -1 before the first start code.
        private var start = -1
        /// The first position not yet tested for a start code.
        private var position = 0

        package init() {}

        /// Tests every position whose three bytes lie before `limit`, appending each unit that a
        /// start code ends. Later calls go on from where this one stopped, with a larger limit.
        /// - Complexity: O(*limit − previous limit*), sixteen bytes at a time.
        package mutating func scan(_ buffer: UnsafeRawBufferPointer, upTo limit: Int, into units: inout [Range<Int>]) {
            let n = min(limit, buffer.count)
            guard let base = buffer.baseAddress else { return }
            var start = self.start

            // A start code at `p` (bytes p, p+1 zero, p+2 one) ends the current unit and starts
            // one. Start codes never overlap, so finding them in any order of checks finds the
            // same ones.
            func startCode(at p: Int) {
                if start >= 0 {
                    var end = p
                    while end > start, base.load(fromByteOffset: end - 1, as: UInt8.self) == 0 { end -= 1 }
                    if end > start { units.append(start..<end) }
                }
                start = p + 3
            }

            // Sixteen positions at a time: bytes p and p + 1 zero and p + 2 one, from three
            // overlapping loads. Start codes are rare, so almost every block is one test.
            var i = position
            let zero = SIMD16<UInt8>(repeating: 0), one = SIMD16<UInt8>(repeating: 1)
            while i + 18 <= n {
                let first = base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                let second = base.loadUnaligned(fromByteOffset: i + 1, as: SIMD16<UInt8>.self)
                let third = base.loadUnaligned(fromByteOffset: i + 2, as: SIMD16<UInt8>.self)
                let found = (first .== zero) .& (second .== zero) .& (third .== one)
                if any(found) {
                    for k in 0..<16 where found[k] { startCode(at: i + k) }
                }
                i += 16
            }
            while i + 2 < n {
                if base.load(fromByteOffset: i, as: UInt8.self) == 0, base.load(fromByteOffset: i + 1, as: UInt8.self) == 0,
                   base.load(fromByteOffset: i + 2, as: UInt8.self) == 1 {
                    startCode(at: i)
                }
                i += 1
            }
            self.start = start
            position = max(position, i)
        }

        /// Ends the scan: scans what is left, and the unit the last start code began runs to the
        /// end of `buffer`.
        package mutating func finish(_ buffer: UnsafeRawBufferPointer, into units: inout [Range<Int>]) {
            scan(buffer, upTo: buffer.count, into: &units)
            if start >= 0, start < buffer.count { units.append(start..<buffer.count) }
            start = -1
            position = buffer.count
        }
    }

    /// Parses an Annex-B stream held in an array.
    /// - Throws: ``MovieFormatError`` when the stream has no SPS/PPS, no pictures, or a slice
    ///   header that does not parse.
    package init(annexB bytes: [UInt8]) throws(MovieFormatError) {
        try self.init(annexB: ImmutableBytes(bytes))
    }

    /// Parses an Annex-B stream, keeping `bytes` for the access units to refer to.
    /// - Throws: ``MovieFormatError`` when the stream has no SPS/PPS, no pictures, or a slice
    ///   header that does not parse.
    package init(annexB bytes: ImmutableBytes) throws(MovieFormatError) {
        let parsed = try bytes.withUnsafeBytes { (buffer) throws(MovieFormatError) in try Self.parse(buffer) }
        self.bytes = bytes
        configuration = parsed.configuration
        reorderDepth = parsed.reorderDepth
        accessUnits = parsed.pictures.map {
            AccessUnit(nalUnitRanges: parsed.nalUnits[$0.nalUnits], isSync: $0.isSync,
                       presentationIndex: $0.presentationIndex, bytes: bytes)
        }
    }

    private struct Parsed {
        var configuration: VideoDecoderConfiguration
        /// The pictures' NAL units in order; each picture's are a contiguous run.
        var nalUnits: [Range<Int>]
        var pictures: [(nalUnits: Range<Int>, isSync: Bool, presentationIndex: Int)]
        var reorderDepth: Int
    }

    private static func parse(_ buffer: UnsafeRawBufferPointer) throws(MovieFormatError) -> Parsed {
        let units = nalUnitRanges(in: buffer)
        // Each header byte is a cache miss, the units being far apart in a large stream; in a
        // loop of their own the loads overlap, and the slice headers after them come along.
        let headers = units.map { buffer[$0.lowerBound] }
        let codec = Codec.detect(firstUnit: units.first, in: buffer)
        let parameterSets = firstParameterSets(zip(units, headers), codec: codec, in: buffer).sets
        let configuration = try VideoDecoderConfiguration(parameterSets: parameterSets, codec: codec)

        var parser = PictureParser(configuration: configuration)
        var kept: [Range<Int>] = []  // the pictures' NAL units, in the order of `pictures`
        kept.reserveCapacity(units.count)
        var pictures: [PictureParser.Picture] = []
        try parser.add(units[...], headers: headers[...], of: buffer, keeping: &kept, pictures: &pictures)
        parser.finish(keeping: &kept, pictures: &pictures)
        guard !pictures.isEmpty else { throw .invalidBitstream("the stream holds no coded pictures", codec: codec == .h264 ? "H.264" : "HEVC") }

        // Display order: by IDR period, then picture order count.
        let displayOrder = pictures.indices.sorted {
            (pictures[$0].idrPeriod, pictures[$0].pictureOrderCount, $0) < (pictures[$1].idrPeriod, pictures[$1].pictureOrderCount, $1)
        }
        var presentationIndex = [Int](repeating: 0, count: pictures.count)
        for (display, decode) in displayOrder.enumerated() { presentationIndex[decode] = display }
        return Parsed(configuration: configuration, nalUnits: kept,
                      pictures: pictures.indices.map { (pictures[$0].nalUnits, pictures[$0].isSync, presentationIndex[$0]) },
                      reorderDepth: pictures.indices.map { $0 - presentationIndex[$0] }.max() ?? 0)
    }

    /// Groups NAL units into coded pictures in decode order as they are found, reading each
    /// picture's first slice header for its picture order count (H.264 §7.4.3, §8.2.1; for
    /// HEVC, `AnnexBStream+HEVC.swift`).
    ///
    /// Parameter sets and access unit delimiters are dropped; other units (SEI) go with the
    /// picture after them. A picture is complete when the next one begins, so each call reports
    /// the pictures completed so far and ``finish(keeping:pictures:)`` the last.
    package struct PictureParser: Sendable {
        /// A coded picture in decode order.
        package struct Picture: Sendable {
            /// Where the picture's NAL units lie in the `kept` array they were added to.
            package var nalUnits: Range<Int>
            /// A Boolean value that indicates whether the picture is a random access point.
            package var isSync: Bool
            /// The picture order count, which orders the pictures of one IDR period for display.
            package var pictureOrderCount: Int
            /// How many IDR pictures came before this one's period, counted from 0.
            package var idrPeriod: Int
        }

        private let sps: SequenceParameterSet?
        /// For an HEVC stream, its parameter sets.
        let hevc: HEVCDecoderConfiguration?
        /// The picture being read: what its first slice said, and its NAL units so far.
        var current: (isSync: Bool, poc: Int, idrPeriod: Int)?
        var currentUnits: [Range<Int>] = []
        /// SEI and other units seen since the last slice, which go with the next picture.
        var pending: [Range<Int>] = []
        var pocMSB = 0, prevPOCLSB = 0, idrPeriod = -1
        var started = false
        var rbsp: [UInt8] = []

        /// Creates a parser for the pictures of the H.264 stream whose sequence parameter set is `sps`.
        package init(sps: SequenceParameterSet) {
            self.sps = sps
            hevc = nil
        }

        /// Creates a parser for the pictures of the stream `configuration` describes.
        package init(configuration: VideoDecoderConfiguration) {
            switch configuration {
            case .h264(let avc):
                sps = avc.sps
                hevc = nil
            case .hevc(let hevc):
                sps = nil
                self.hevc = hevc
            }
        }

        /// Reads `units` (ranges into `buffer`, in stream order, with `headers` their first
        /// bytes), appending each completed picture to `pictures` and its NAL units to `kept`.
        /// - Throws: ``MovieFormatError`` when a slice header does not parse.
        package mutating func add(_ units: ArraySlice<Range<Int>>, headers: ArraySlice<UInt8>, of buffer: UnsafeRawBufferPointer,
                                 keeping kept: inout [Range<Int>], pictures: inout [Picture]) throws(MovieFormatError) {
            guard let sps else {
                try addHEVC(units, headers: headers, of: buffer, keeping: &kept, pictures: &pictures)
                return
            }
            for (unit, header) in zip(units, headers) {
                let type = header & 0x1F
                switch type {
                case 7, 8, 9:
                    continue  // parameter sets live in avcC; delimiters are not needed in a movie
                case 1, 5:
                    let isIDR = type == 5
                    let slice: (firstMB: UInt32, pocLSB: Int?)
                    do { slice = try readHeader(unit, isIDR: isIDR, sps: sps, length: 16, in: buffer) } catch {
                        slice = try readHeader(unit, isIDR: isIDR, sps: sps, length: 64, in: buffer)
                    }
                    if slice.firstMB == 0 || !started {
                        emitCurrent(keeping: &kept, pictures: &pictures)
                        if isIDR {
                            idrPeriod += 1
                            pocMSB = 0
                            prevPOCLSB = 0
                        }
                        let poc: Int
                        if let lsb = slice.pocLSB {
                            // §8.2.1.1: the most significant part follows the previous
                            // reference picture's; a non-reference picture's own does not carry.
                            let maxLSB = 1 << Int(sps.log2MaxPictureOrderCountLSB)
                            var msb = pocMSB
                            if lsb < prevPOCLSB && prevPOCLSB - lsb >= maxLSB / 2 {
                                msb += maxLSB
                            } else if lsb > prevPOCLSB && lsb - prevPOCLSB > maxLSB / 2 {
                                msb -= maxLSB
                            }
                            poc = msb + lsb
                            if header & 0x60 != 0 {  // nal_ref_idc: a reference picture
                                pocMSB = msb
                                prevPOCLSB = lsb
                            }
                        } else {
                            // Types 1 and 2 as x264 writes them: output order is decode order.
                            poc = pictureCount
                        }
                        if idrPeriod < 0 { idrPeriod = 0 }
                        started = true
                        pictureCount += 1
                        current = (isIDR, poc, idrPeriod)
                        currentUnits.append(contentsOf: pending)
                        currentUnits.append(unit)
                        pending.removeAll(keepingCapacity: true)
                    } else {
                        currentUnits.append(unit)
                    }
                default:
                    pending.append(unit)
                }
            }
        }

        /// Ends the stream: reports the last picture. Units after its last slice are dropped.
        package mutating func finish(keeping kept: inout [Range<Int>], pictures: inout [Picture]) {
            emitCurrent(keeping: &kept, pictures: &pictures)
        }

        var pictureCount = 0

        mutating func emitCurrent(keeping kept: inout [Range<Int>], pictures: inout [Picture]) {
            guard let picture = current else { return }
            let first = kept.count
            kept.append(contentsOf: currentUnits)
            pictures.append(Picture(nalUnits: first..<kept.count, isSync: picture.isSync, pictureOrderCount: picture.poc,
                                    idrPeriod: picture.idrPeriod))
            current = nil
            currentUnits.removeAll(keepingCapacity: true)
        }

        /// Reads the slice header fields up to `pic_order_cnt_lsb` from the first `length` bytes
        /// of the payload.
        ///
        /// The fields take at most 288 bits (four Exp-Golomb codes of at most 63 bits, two fields
        /// of at most 16 and four flag bits). At most one byte in three is an emulation-prevention
        /// byte, so 64 bytes hold more than enough; reading only those keeps a large slice from
        /// being copied whole. They nearly always fit in 16, so those are tried first, and 64 only
        /// when 16 run out (or fail otherwise, so errors stay those of the longer read).
        private mutating func readHeader(_ unit: Range<Int>, isIDR: Bool, sps: SequenceParameterSet, length: Int,
                                         in buffer: UnsafeRawBufferPointer) throws(MovieFormatError) -> (firstMB: UInt32, pocLSB: Int?) {
            let payload = unit.lowerBound + 1..<min(unit.upperBound, unit.lowerBound + 1 + length)
            var r = BitReader(nalPayload: buffer[payload], reusing: &rbsp)
            let firstMB = try r.ue()
            _ = try r.ue()  // slice_type
            _ = try r.ue()  // pic_parameter_set_id
            if sps.separateColourPlane { _ = try r.bits(2) }
            _ = try r.bits(Int(sps.log2MaxFrameNum))  // frame_num
            if !sps.frameMBsOnly, try r.flag() { _ = try r.flag() }
            if isIDR { _ = try r.ue() }
            guard firstMB == 0 || !started, sps.pictureOrderCountType == 0 else { return (firstMB, nil) }
            return (firstMB, Int(try r.bits(Int(sps.log2MaxPictureOrderCountLSB))))
        }
    }
}
