/// The fields of an H.264 sequence parameter set that a muxer needs (ITU-T H.264 §7.3.2.1.1).
package struct SequenceParameterSet: Hashable, Sendable {
    package var profileIndication: UInt8
    package var profileCompatibility: UInt8
    package var levelIndication: UInt8
    package var chromaFormat: UInt32 = 1
    package var bitDepthLuma: UInt32 = 8
    package var bitDepthChroma: UInt32 = 8
    package var separateColourPlane = false
    package var log2MaxFrameNum: UInt32
    package var pictureOrderCountType: UInt32
    package var log2MaxPictureOrderCountLSB: UInt32 = 0
    package var frameMBsOnly: Bool
    /// The displayed width in pixels, after cropping.
    package var width: Int
    /// The displayed height in pixels, after cropping.
    package var height: Int
    /// The sample aspect ratio from the VUI, when given.
    package var sampleAspectRatio: SampleAspectRatio?
    /// Colour primaries, transfer characteristics and matrix coefficients from the VUI, when
    /// given.
    package var colorDescription: ColorDescription?
    /// The most frames that may precede a frame in decode order and follow it in display order
    /// (the VUI's `max_num_reorder_frames`), when the stream states it; `nil` when it does not,
    /// when the VUI ends before it or is malformed on the way, or when the bound exceeds
    /// `max_dec_frame_buffering`. A muxer that knows it can give pictures their display
    /// positions while it reads, instead of after the whole stream.
    package var maxNumReorderFrames: UInt32?

    /// Parses an SPS NAL unit, header byte included.
    /// - Throws: ``MovieFormatError`` with code `.invalidBitstream` when it is not a valid SPS.
    package init(nalUnit: ArraySlice<UInt8>) throws(MovieFormatError) {
        guard nalUnit.count >= 4, nalUnit[nalUnit.startIndex] & 0x1F == 7 else {
            throw .invalidBitstream("expected a sequence parameter set (NAL type 7)")
        }
        var r = BitReader(nalPayload: nalUnit.dropFirst())
        profileIndication = UInt8(try r.bits(8))
        profileCompatibility = UInt8(try r.bits(8))
        levelIndication = UInt8(try r.bits(8))
        _ = try r.ue()  // seq_parameter_set_id
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profileIndication) {
            chromaFormat = try r.ue()
            guard chromaFormat <= 3 else { throw .invalidBitstream("chroma_format_idc \(chromaFormat) is out of range") }
            if chromaFormat == 3 { separateColourPlane = try r.flag() }
            bitDepthLuma = try r.ue(atMost: 6, "bit_depth_luma_minus8") + 8
            bitDepthChroma = try r.ue(atMost: 6, "bit_depth_chroma_minus8") + 8
            guard bitDepthLuma <= 14, bitDepthChroma <= 14 else { throw .invalidBitstream("bit depth is out of range") }
            _ = try r.flag()  // qpprime_y_zero_transform_bypass_flag
            if try r.flag() {  // seq_scaling_matrix_present_flag
                for list in 0..<(chromaFormat == 3 ? 12 : 8) {
                    guard try r.flag() else { continue }  // seq_scaling_list_present_flag
                    var last: Int32 = 8, next: Int32 = 8
                    for _ in 0..<(list < 6 ? 16 : 64) {
                        if next != 0 {
                            let delta = try r.se()  // delta_scale: −128...127
                            guard delta >= -128 && delta <= 127 else { throw .invalidBitstream("delta_scale \(delta) is out of range") }
                            next = (last + delta + 256) % 256
                        }
                        if next != 0 { last = next }
                    }
                }
            }
        }
        log2MaxFrameNum = try r.ue(atMost: 12, "log2_max_frame_num_minus4") + 4
        pictureOrderCountType = try r.ue()
        guard log2MaxFrameNum <= 16, pictureOrderCountType <= 2 else {
            throw .invalidBitstream("frame number or picture order count fields are out of range")
        }
        if pictureOrderCountType == 0 {
            log2MaxPictureOrderCountLSB = try r.ue(atMost: 12, "log2_max_pic_order_cnt_lsb_minus4") + 4
            guard log2MaxPictureOrderCountLSB <= 16 else { throw .invalidBitstream("log2_max_pic_order_cnt_lsb is out of range") }
        } else if pictureOrderCountType == 1 {
            _ = try r.flag()
            _ = try r.se()
            _ = try r.se()
            let cycle = try r.ue()
            guard cycle <= 255 else { throw .invalidBitstream("num_ref_frames_in_pic_order_cnt_cycle is out of range") }
            for _ in 0..<cycle { _ = try r.se() }
        }
        _ = try r.ue()  // max_num_ref_frames
        _ = try r.flag()  // gaps_in_frame_num_value_allowed_flag
        let widthInMBs = Int(try r.ue()) + 1
        let heightInMapUnits = Int(try r.ue()) + 1
        frameMBsOnly = try r.flag()
        if !frameMBsOnly { _ = try r.flag() }  // mb_adaptive_frame_field_flag
        _ = try r.flag()  // direct_8x8_inference_flag
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.flag() {
            crop = (Int(try r.ue()), Int(try r.ue()), Int(try r.ue()), Int(try r.ue()))
        }
        let chromaArrayType = separateColourPlane ? 0 : chromaFormat
        let cropUnitX = chromaArrayType == 0 ? 1 : (chromaFormat == 3 ? 1 : 2)
        let cropUnitY = (chromaArrayType == 0 ? 1 : (chromaFormat == 1 ? 2 : 1)) * (frameMBsOnly ? 1 : 2)
        width = widthInMBs * 16 - cropUnitX * (crop.left + crop.right)
        height = heightInMapUnits * 16 * (frameMBsOnly ? 1 : 2) - cropUnitY * (crop.top + crop.bottom)
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw .invalidBitstream("picture size \(width)x\(height) is out of range")
        }
        if r.bitsLeft > 0, try r.flag() {  // vui_parameters_present_flag
            (sampleAspectRatio, colorDescription) = try r.readPictureVUI()
            // The rest of the VUI is read only for the reorder bound: a VUI that ends early or
            // is malformed past this point leaves the bound unknown and the SPS as valid as before.
            maxNumReorderFrames = try? Self.reorderBound(&r)
        }
    }

    /// Reads the VUI from `chroma_loc_info_present_flag` on (§E.1.1) and returns
    /// `max_num_reorder_frames`, or `nil` when there is no bitstream restriction.
    private static func reorderBound(_ r: inout BitReader) throws(MovieFormatError) -> UInt32? {
        if try r.flag() {  // chroma_loc_info_present_flag
            _ = try r.ue()
            _ = try r.ue()
        }
        if try r.flag() {  // timing_info_present_flag: num_units_in_tick, time_scale, fixed_frame_rate_flag
            _ = try r.bits(32)
            _ = try r.bits(32)
            _ = try r.flag()
        }
        let nalHRD = try r.flag()
        if nalHRD { try skipHRDParameters(&r) }
        let vclHRD = try r.flag()
        if vclHRD { try skipHRDParameters(&r) }
        if nalHRD || vclHRD { _ = try r.flag() }  // low_delay_hrd_flag
        _ = try r.flag()  // pic_struct_present_flag
        guard try r.flag() else { return nil }  // bitstream_restriction_flag
        _ = try r.flag()  // motion_vectors_over_pic_boundaries_flag
        for _ in 0..<4 { _ = try r.ue() }  // max_bytes_per_pic_denom … log2_max_mv_length_vertical
        let reorder = try r.ue(atMost: 16, "max_num_reorder_frames")
        let buffering = try r.ue(atMost: 16, "max_dec_frame_buffering")
        guard reorder <= buffering else { throw .invalidBitstream("max_num_reorder_frames exceeds max_dec_frame_buffering") }
        return reorder
    }

    /// Skips `hrd_parameters()` (§E.1.2).
    private static func skipHRDParameters(_ r: inout BitReader) throws(MovieFormatError) {
        let count = try r.ue(atMost: 31, "cpb_cnt_minus1") + 1
        _ = try r.bits(8)  // bit_rate_scale, cpb_size_scale
        for _ in 0..<count {
            _ = try r.ue()  // bit_rate_value_minus1
            _ = try r.ue()  // cpb_size_value_minus1
            _ = try r.flag()  // cbr_flag
        }
        _ = try r.bits(20)  // four delay and offset lengths, five bits each
    }
}
