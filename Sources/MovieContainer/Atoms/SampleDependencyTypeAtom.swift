/// `sdtp`: one byte per sample saying how it depends on others (ISO/IEC 14496-12, "Independent
/// and Disposable Samples Box"; Apple writes it in QuickTime movies too). Bits 7–6 are
/// `is_leading`, 5–4 `sample_depends_on` (1: depends on others, 2: an I picture), 3–2
/// `sample_is_depended_on` (1: others may depend on it, 2: disposable, no other refers to it) and
/// 1–0 `sample_has_redundancy`; 0 in a field means unknown. Players skip disposable samples when
/// they scrub or play fast.
package struct SampleDependencyTypeAtom: QuickTimeAtom {
    package static let type: FourCC = "sdtp"
    package var flags: [UInt8]

    package init(flags: [UInt8]) { self.flags = flags }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(contentsOf: flags)
    }

    /// Reads the table; the sample count is the body's length, as the atom does not say it.
    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        flags = try r.readBytes(r.remaining)
    }

    /// The byte for a sample: whether it is an I picture (depends on nothing) and whether any
    /// other picture may refer to it; `nil` for unknown.
    package static func flags(isIndependent: Bool, isReferenced: Bool?) -> UInt8 {
        let dependsOn: UInt8 = isIndependent ? 2 : 1
        let dependedOn: UInt8 = isReferenced.map { $0 ? 1 : 2 } ?? 0
        return dependsOn << 4 | dependedOn << 2
    }

    /// Whether another picture may refer to the access unit whose NAL units begin with
    /// `headers` (each NAL unit's first byte): an H.264 picture with `nal_ref_idc` above 0, an
    /// HEVC picture that is not a sub-layer non-reference one (types 0–14, even). `nil` when
    /// no picture (VCL) NAL unit is there.
    package static func isReferenced(nalHeaders headers: some Sequence<UInt8>, isHEVC: Bool) -> Bool? {
        var sawPicture = false
        for header in headers {
            if isHEVC {
                let type = (header >> 1) & 0x3F
                guard type < 32 else { continue }
                sawPicture = true
                if type > 14 || type % 2 == 1 { return true }
            } else {
                let type = header & 0x1F
                guard (1...5).contains(type) else { continue }
                sawPicture = true
                if header & 0x60 != 0 { return true }
            }
        }
        return sawPicture ? false : nil
    }
}
