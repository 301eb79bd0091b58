// What a video sample description says of its codec: the MIME codecs parameter and the profile.
extension VideoSampleEntry {
    /// The codecs parameter of a MIME type (RFC 6381; ISO/IEC 14496-15 Annex E), such as
    /// `avc1.64001F` or `hvc1.1.6.L93.B0`; `nil` for other formats or a damaged record.
    package var codecString: String? {
        if let avcC = extensions.first(where: { $0.type == "avcC" })?.body, avcC.count >= 4 {
            return "avc1." + avcC[1...3].map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
        }
        return hevcConfiguration.map { "\(format)" + $0.codecString.dropFirst(4) }
    }

    /// The profile, tier and level in words, such as "HEVC Main, Main tier, level 3.1" or
    /// "H.264 High, level 3.1"; `nil` for other formats.
    package var profileDescription: String? {
        if let avcC = extensions.first(where: { $0.type == "avcC" })?.body, avcC.count >= 4 {
            let names: [UInt8: String] = [66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10",
                                          122: "High 4:2:2", 244: "High 4:4:4 Predictive"]
            let level = avcC[3] % 10 == 0 ? "\(avcC[3] / 10)" : "\(avcC[3] / 10).\(avcC[3] % 10)"
            return "H.264 \(names[avcC[1]] ?? "profile \(avcC[1])"), level \(level)"
        }
        guard let ptl = hevcConfiguration?.profileTierLevel else { return nil }
        return "HEVC \(ptl.profileName), \(ptl.isHighTier ? "High" : "Main") tier, level \(ptl.levelName)"
    }

    /// The parsed `hvcC`, for 'hvc1' and 'hev1' entries.
    package var hevcConfiguration: HEVCDecoderConfiguration? {
        guard let body = extensions.first(where: { $0.type == "hvcC" })?.body else { return nil }
        return try? HEVCDecoderConfiguration(atomBody: body)
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
