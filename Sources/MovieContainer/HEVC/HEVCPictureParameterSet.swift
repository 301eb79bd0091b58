/// The fields of an HEVC picture parameter set that `hvcC` and a slice header reader need
/// (ITU-T H.265 §7.3.2.3.1).
package struct HEVCPictureParameterSet: Hashable, Sendable {
    /// Whether slice headers carry `pic_output_flag`.
    package var outputFlagPresent: Bool
    /// `num_extra_slice_header_bits`: bits a slice header carries before `slice_type`.
    package var extraSliceHeaderBits: Int
    package var tilesEnabled: Bool
    package var entropyCodingSyncEnabled: Bool

    /// Parses a PPS NAL unit, its two-byte header included.
    /// - Throws: ``MovieFormatError`` when it ends before the fields.
    package init(nalUnit: [UInt8]) throws(MovieFormatError) {
        var r = BitReader(nalPayload: nalUnit.dropFirst(2))
        r.codec = "HEVC"
        _ = try r.ue(atMost: 63, "pps_pic_parameter_set_id")
        _ = try r.ue(atMost: 15, "pps_seq_parameter_set_id")
        _ = try r.flag()  // dependent_slice_segments_enabled_flag
        outputFlagPresent = try r.flag()
        extraSliceHeaderBits = Int(try r.bits(3))
        _ = try r.bits(2)  // sign_data_hiding_enabled_flag, cabac_init_present_flag
        _ = try r.ue()
        _ = try r.ue()  // num_ref_idx_l0/l1_default_active_minus1
        _ = try r.se()  // init_qp_minus26
        _ = try r.bits(2)  // constrained_intra_pred_flag, transform_skip_enabled_flag
        if try r.flag() { _ = try r.ue() }  // cu_qp_delta_enabled_flag, diff_cu_qp_delta_depth
        _ = try r.se()
        _ = try r.se()  // pps_cb_qp_offset, pps_cr_qp_offset
        _ = try r.bits(4)  // slice chroma offsets, weighted prediction, weighted bi-prediction, transquant bypass
        tilesEnabled = try r.flag()
        entropyCodingSyncEnabled = try r.flag()
    }

    /// `parallelismType` for `hvcC`: 0 mixed, 1 slices, 2 tiles, 3 wavefront.
    package var parallelismType: UInt8 {
        tilesEnabled && entropyCodingSyncEnabled ? 0 : entropyCodingSyncEnabled ? 3 : tilesEnabled ? 2 : 1
    }
}
