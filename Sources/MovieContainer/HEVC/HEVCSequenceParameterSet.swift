/// The fields of an HEVC sequence parameter set that a muxer needs (ITU-T H.265 §7.3.2.2),
/// read through the VUI for the picture's shape and colours and `min_spatial_segmentation_idc`.
package struct HEVCSequenceParameterSet: Hashable, Sendable {
    package var maxSubLayersMinus1: Int
    package var temporalIDNesting: Bool
    package var profileTierLevel: HEVCProfileTierLevel
    package var chromaFormat: UInt32
    package var separateColourPlane = false
    package var bitDepthLuma: UInt32
    package var bitDepthChroma: UInt32
    /// The displayed width in pixels, after the conformance window.
    package var width: Int
    /// The displayed height in pixels, after the conformance window.
    package var height: Int
    /// `sps_max_num_reorder_pics` of the highest sub-layer.
    package var maxNumReorderPictures: UInt32
    package var log2MaxPictureOrderCountLSB: UInt32
    package var sampleAspectRatio: SampleAspectRatio?
    package var colorDescription: ColorDescription?
    /// From the VUI's bitstream restriction; 0 when the VUI does not state it.
    package var minSpatialSegmentation: UInt32 = 0

    /// Parses an SPS NAL unit, its two-byte header included.
    /// - Throws: ``MovieFormatError`` with code `.invalidBitstream` when it is not a valid SPS.
    package init(nalUnit: ArraySlice<UInt8>) throws(MovieFormatError) {
        guard nalUnit.count >= 4, (nalUnit[nalUnit.startIndex] >> 1) & 0x3F == 33 else {
            throw .invalidBitstream("expected an HEVC sequence parameter set (NAL type 33)", codec: "HEVC")
        }
        var r = BitReader(nalPayload: nalUnit.dropFirst(2))
        r.codec = "HEVC"
        _ = try r.bits(4)  // sps_video_parameter_set_id
        maxSubLayersMinus1 = Int(try r.bits(3))
        guard maxSubLayersMinus1 < 7 else { throw .invalidBitstream("sps_max_sub_layers_minus1 \(maxSubLayersMinus1) is out of range", codec: "HEVC") }
        temporalIDNesting = try r.flag()
        profileTierLevel = try HEVCProfileTierLevel(&r, maxSubLayersMinus1: maxSubLayersMinus1)
        _ = try r.ue(atMost: 15, "sps_seq_parameter_set_id")
        chromaFormat = try r.ue(atMost: 3, "chroma_format_idc")
        if chromaFormat == 3 { separateColourPlane = try r.flag() }
        let codedWidth = Int(try r.ue()), codedHeight = Int(try r.ue())
        var window = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.flag() { window = (Int(try r.ue()), Int(try r.ue()), Int(try r.ue()), Int(try r.ue())) }
        let unitX = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1, unitY = chromaFormat == 1 ? 2 : 1
        width = codedWidth - unitX * (window.left + window.right)
        height = codedHeight - unitY * (window.top + window.bottom)
        guard width > 0, height > 0, width <= 16888, height <= 16888 else {
            throw .invalidBitstream("picture size \(width)x\(height) is out of range", codec: "HEVC")
        }
        bitDepthLuma = try r.ue(atMost: 8, "bit_depth_luma_minus8") + 8
        bitDepthChroma = try r.ue(atMost: 8, "bit_depth_chroma_minus8") + 8
        log2MaxPictureOrderCountLSB = try r.ue(atMost: 12, "log2_max_pic_order_cnt_lsb_minus4") + 4
        let orderingForAll = try r.flag()
        maxNumReorderPictures = 0
        for _ in (orderingForAll ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            _ = try r.ue()  // sps_max_dec_pic_buffering_minus1
            maxNumReorderPictures = try r.ue(atMost: 16, "sps_max_num_reorder_pics")
            _ = try r.ue()  // sps_max_latency_increase_plus1
        }
        for _ in 0..<6 { _ = try r.ue() }  // coding and transform block sizes, hierarchy depths
        if try r.flag(), try r.flag() { try Self.skipScalingListData(&r) }
        _ = try r.flag()  // amp_enabled_flag
        _ = try r.flag()  // sample_adaptive_offset_enabled_flag
        if try r.flag() {  // pcm_enabled_flag: bit depths, block sizes, loop filter
            _ = try r.bits(8)
            _ = try r.ue()
            _ = try r.ue()
            _ = try r.flag()
        }
        try Self.skipShortTermReferencePictureSets(&r)
        if try r.flag() {  // long_term_ref_pics_present_flag
            for _ in 0..<(try r.ue(atMost: 32, "num_long_term_ref_pics_sps")) {
                _ = try r.bits(Int(log2MaxPictureOrderCountLSB))
                _ = try r.flag()
            }
        }
        _ = try r.flag()  // sps_temporal_mvp_enabled_flag
        _ = try r.flag()  // strong_intra_smoothing_enabled_flag
        if try r.flag() { try readVUI(&r) }
    }

    /// Reads `vui_parameters()` (§E.2.1) as far as `min_spatial_segmentation_idc`.
    private mutating func readVUI(_ r: inout BitReader) throws(MovieFormatError) {
        (sampleAspectRatio, colorDescription) = try r.readPictureVUI()
        if try r.flag() {  // chroma_loc_info_present_flag
            _ = try r.ue()
            _ = try r.ue()
        }
        _ = try r.bits(3)  // neutral_chroma_indication, field_seq, frame_field_info_present
        if try r.flag() { for _ in 0..<4 { _ = try r.ue() } }  // default display window
        if try r.flag() {  // vui_timing_info_present_flag
            _ = try r.bits(32)
            _ = try r.bits(32)
            if try r.flag() { _ = try r.ue() }  // num_ticks_poc_diff_one_minus1
            if try r.flag() { try Self.skipHRDParameters(&r, maxSubLayersMinus1: maxSubLayersMinus1) }
        }
        guard try r.flag() else { return }  // bitstream_restriction_flag
        _ = try r.bits(3)  // tiles_fixed_structure, motion_vectors_over_pic_boundaries, restricted_ref_pic_lists
        minSpatialSegmentation = try r.ue(atMost: 4095, "min_spatial_segmentation_idc")
    }

    /// Skips `scaling_list_data()` (§7.3.4).
    private static func skipScalingListData(_ r: inout BitReader) throws(MovieFormatError) {
        for size in 0..<4 {
            for _ in stride(from: 0, to: 6, by: size == 3 ? 3 : 1) {
                guard try r.flag() else {  // scaling_list_pred_mode_flag
                    _ = try r.ue()  // scaling_list_pred_matrix_id_delta
                    continue
                }
                if size > 1 { _ = try r.se() }  // scaling_list_dc_coef_minus8
                for _ in 0..<min(64, 1 << (4 + (size << 1))) { _ = try r.se() }
            }
        }
    }

    /// Skips the SPS's `st_ref_pic_set(i)` structures (§7.3.7), which a later one may predict
    /// from an earlier one's count of pictures.
    private static func skipShortTermReferencePictureSets(_ r: inout BitReader) throws(MovieFormatError) {
        let count = Int(try r.ue(atMost: 64, "num_short_term_ref_pic_sets"))
        var deltaCounts: [Int] = []
        for index in 0..<count {
            if index > 0, try r.flag() {  // inter_ref_pic_set_prediction_flag
                _ = try r.flag()  // delta_rps_sign
                _ = try r.ue()  // abs_delta_rps_minus1
                var used = 0
                for _ in 0...deltaCounts[index - 1] {
                    // use_delta_flag follows only a clear used_by_curr_pic_flag.
                    let counted = try r.flag() ? true : try r.flag()
                    if counted { used += 1 }
                }
                deltaCounts.append(used)
            } else {
                let negative = Int(try r.ue(atMost: 16, "num_negative_pics"))
                let positive = Int(try r.ue(atMost: 16, "num_positive_pics"))
                for _ in 0..<(negative + positive) {
                    _ = try r.ue()
                    _ = try r.flag()
                }
                deltaCounts.append(negative + positive)
            }
        }
    }

    /// Skips `hrd_parameters(1, maxSubLayersMinus1)` (§E.2.2).
    private static func skipHRDParameters(_ r: inout BitReader, maxSubLayersMinus1: Int) throws(MovieFormatError) {
        let nal = try r.flag(), vcl = try r.flag()
        var subPicture = false
        if nal || vcl {
            subPicture = try r.flag()
            if subPicture { _ = try r.bits(19) }  // tick divisor, delay lengths, the SEI flag
            _ = try r.bits(8)  // bit_rate_scale, cpb_size_scale
            if subPicture { _ = try r.bits(4) }
            _ = try r.bits(15)  // three delay lengths
        }
        for _ in 0...maxSubLayersMinus1 {
            let fixedGeneral = try r.flag()
            let fixedWithin = fixedGeneral ? true : try r.flag()
            var lowDelay = false
            if fixedWithin { _ = try r.ue() } else { lowDelay = try r.flag() }
            let cpbCount = lowDelay ? 1 : Int(try r.ue(atMost: 31, "cpb_cnt_minus1")) + 1
            for _ in 0..<((nal ? 1 : 0) + (vcl ? 1 : 0)) {
                for _ in 0..<cpbCount {
                    _ = try r.ue()
                    _ = try r.ue()
                    if subPicture {
                        _ = try r.ue()
                        _ = try r.ue()
                    }
                    _ = try r.flag()
                }
            }
        }
    }
}
