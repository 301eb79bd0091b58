import MovieContainer

/// What a hardware encoder's Annex B output becomes in a movie, as x264's does: the parameter
/// sets taken out (kept for `avcC`/`hvcC`: drivers put them in front of the first frame, or of
/// every keyframe when asked to repeat them, which a movie keeps in its sample description
/// instead), access unit delimiters dropped, the other NAL units given 4-byte lengths.
struct HardwareBitstream {
    let codec: AnnexBStream.Codec
    /// The latest parameter set of each kind, in the order a configuration lists them.
    private(set) var parameterSets: [UInt8: [UInt8]] = [:]

    init(codec: AnnexBStream.Codec) { self.codec = codec }

    /// One coded buffer, converted.
    struct AccessUnit {
        /// Length-prefixed NAL units, without parameter sets; empty for a buffer of headers only.
        var data: [UInt8] = []
        /// It holds an IDR picture (H.264) or an IRAP picture (HEVC).
        var isKeyframe = false
        /// The parameter sets in it differ from those seen before.
        var changesParameterSets = false
    }

    /// Converts a coded buffer of Annex B NAL units.
    mutating func convert(_ annexB: [UInt8]) -> AccessUnit {
        var unit = AccessUnit()
        var data = ByteWriter(capacity: annexB.count + 16)
        let delimiter: UInt8 = codec == .h264 ? 9 : 35
        for nal in AnnexBStream.nalUnits(in: annexB) {
            guard let header = nal.first else { continue }
            let type = codec.type(header)
            if codec.isParameterSet(type) {
                if let old = parameterSets[type], !old.elementsEqual(nal) { unit.changesParameterSets = true }
                parameterSets[type] = Array(nal)
                continue
            }
            if type == delimiter { continue }
            unit.isKeyframe = unit.isKeyframe || codec.isSync(type)
            data.write(UInt32(nal.count))
            data.write(contentsOf: nal)
        }
        unit.data = data.bytes
        return unit
    }

    /// The decoder configuration from the parameter sets seen, once each kind has been.
    func configuration() throws(MovieFormatError) -> VideoDecoderConfiguration? {
        let sets = codec.parameterSetTypes.compactMap { parameterSets[$0] }
        guard sets.count == codec.parameterSetTypes.count else { return nil }
        return try VideoDecoderConfiguration(parameterSets: sets, codec: codec)
    }
}
