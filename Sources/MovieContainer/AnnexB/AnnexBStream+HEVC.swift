// HEVC pictures: which NAL units make one, and its picture order count (ITU-T H.265 §7.4.2.4.4,
// §8.3.1), for the same grouping and display order as H.264's.
extension AnnexBStream.PictureParser {
    /// ``add(_:headers:of:keeping:pictures:)`` for an HEVC stream.
    mutating func addHEVC(_ units: ArraySlice<Range<Int>>, headers: ArraySlice<UInt8>, of buffer: UnsafeRawBufferPointer,
                          keeping kept: inout [Range<Int>], pictures: inout [Picture]) throws(MovieFormatError) {
        let codec = AnnexBStream.Codec.hevc
        for (unit, header) in zip(units, headers) {
            let type = codec.type(header)
            if codec.isParameterSet(type) || type == 35 { continue }  // parameter sets live in hvcC; delimiters go
            guard codec.isSlice(type) else {
                // Suffix SEI, end of sequence or bitstream and filler data close the picture
                // they follow; prefix SEI and the rest open the next one.
                if (36...38).contains(type) || type == 40, current != nil { currentUnits.append(unit) } else { pending.append(unit) }
                continue
            }
            guard unit.count >= 3 else { throw .invalidBitstream("a slice segment ends inside its header", codec: "HEVC") }
            guard buffer[unit.lowerBound + 2] & 0x80 != 0 || !started else {  // first_slice_segment_in_pic_flag
                currentUnits.append(unit)
                continue
            }
            emitCurrent(keeping: &kept, pictures: &pictures)
            startHEVCPicture(type: type, temporalID: Int(buffer[unit.lowerBound + 1] & 7) - 1,
                             orderLSB: try hevcOrderLSB(unit, type: type, in: buffer))
            currentUnits.append(contentsOf: pending)
            currentUnits.append(unit)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Begins a picture of NAL unit `type`: its picture order count from `orderLSB` and the
    /// previous picture of temporal layer 0 that others may refer to (§8.3.1).
    private mutating func startHEVCPicture(type: UInt8, temporalID: Int, orderLSB: Int) {
        // IDR and BLA pictures, and a CRA picture that starts the stream, start a new period.
        if (16...20).contains(type) || (type == 21 && !started) {
            idrPeriod += 1
            pocMSB = 0
            prevPOCLSB = orderLSB
        }
        let maxLSB = 1 << Int(hevc!.sps.log2MaxPictureOrderCountLSB)
        var msb = pocMSB
        if orderLSB < prevPOCLSB && prevPOCLSB - orderLSB >= maxLSB / 2 {
            msb += maxLSB
        } else if orderLSB > prevPOCLSB && orderLSB - prevPOCLSB > maxLSB / 2 {
            msb -= maxLSB
        }
        // RADL, RASL and sub-layer non-reference pictures do not carry the count forward.
        let isSubLayerNonReference = type <= 14 && type % 2 == 0
        if temporalID == 0 && !(6...9).contains(type) && !isSubLayerNonReference {
            pocMSB = msb
            prevPOCLSB = orderLSB
        }
        if idrPeriod < 0 { idrPeriod = 0 }
        started = true
        pictureCount += 1
        current = (AnnexBStream.Codec.hevc.isSync(type), msb + orderLSB, idrPeriod)
    }

    /// `slice_pic_order_cnt_lsb` of a picture's first slice segment (0 for an IDR picture),
    /// read from its first 16 bytes, or 64 when those run out.
    private mutating func hevcOrderLSB(_ unit: Range<Int>, type: UInt8, in buffer: UnsafeRawBufferPointer) throws(MovieFormatError) -> Int {
        guard type != 19 && type != 20 else { return 0 }
        do { return try hevcOrderLSB(unit, type: type, length: 16, in: buffer) } catch {
            return try hevcOrderLSB(unit, type: type, length: 64, in: buffer)
        }
    }

    private mutating func hevcOrderLSB(_ unit: Range<Int>, type: UInt8, length: Int,
                                       in buffer: UnsafeRawBufferPointer) throws(MovieFormatError) -> Int {
        let hevc = hevc!
        let payload = unit.lowerBound + 2..<min(unit.upperBound, unit.lowerBound + 2 + length)
        var r = BitReader(nalPayload: buffer[payload], reusing: &rbsp)
        r.codec = "HEVC"
        _ = try r.flag()  // first_slice_segment_in_pic_flag
        if (16...23).contains(type) { _ = try r.flag() }  // no_output_of_prior_pics_flag
        _ = try r.ue(atMost: 63, "slice_pic_parameter_set_id")
        _ = try r.bits(hevc.pps.extraSliceHeaderBits)
        _ = try r.ue(atMost: 2, "slice_type")
        if hevc.pps.outputFlagPresent { _ = try r.flag() }
        if hevc.sps.separateColourPlane { _ = try r.bits(2) }
        return Int(try r.bits(Int(hevc.sps.log2MaxPictureOrderCountLSB)))
    }
}
