/// The general profile, tier and level of an HEVC parameter set (ITU-T H.265 §7.3.3
/// `profile_tier_level`), as `hvcC` and the `hvc1.…` codec string carry them.
package struct HEVCProfileTierLevel: Hashable, Sendable {
    package var profileSpace: UInt8
    /// `false` for the Main tier, `true` for the High tier.
    package var isHighTier: Bool
    /// 1 for Main, 2 for Main 10, 3 for Main Still Picture, 4 for the range extensions.
    package var profileIDC: UInt8
    /// `general_profile_compatibility_flag[j]` for j = 0 to 31, flag 0 in the top bit.
    package var compatibilityFlags: UInt32
    /// The 48 constraint bits from `general_progressive_source_flag` on, in the low 48 bits.
    package var constraintFlags: UInt64
    /// 30 times the level number: 93 for level 3.1.
    package var levelIDC: UInt8

    /// Reads `profile_tier_level(1, maxSubLayersMinus1)`, skipping the sub-layers' fields.
    init(_ r: inout BitReader, maxSubLayersMinus1: Int) throws(MovieFormatError) {
        profileSpace = UInt8(try r.bits(2))
        isHighTier = try r.flag()
        profileIDC = UInt8(try r.bits(5))
        compatibilityFlags = try r.bits(32)
        constraintFlags = UInt64(try r.bits(16)) << 32 | UInt64(try r.bits(32))
        levelIDC = UInt8(try r.bits(8))
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<maxSubLayersMinus1 { present.append((try r.flag(), try r.flag())) }
        if maxSubLayersMinus1 > 0 {
            for _ in maxSubLayersMinus1..<8 { _ = try r.bits(2) }  // reserved_zero_2bits
        }
        for layer in present {
            if layer.profile {  // 2 + 1 + 5 + 32 + 48 bits
                _ = try r.bits(8)
                _ = try r.bits(32)
                _ = try r.bits(32)
                _ = try r.bits(16)
            }
            if layer.level { _ = try r.bits(8) }
        }
    }

    package init(profileSpace: UInt8, isHighTier: Bool, profileIDC: UInt8, compatibilityFlags: UInt32,
                 constraintFlags: UInt64, levelIDC: UInt8) {
        self.profileSpace = profileSpace
        self.isHighTier = isHighTier
        self.profileIDC = profileIDC
        self.compatibilityFlags = compatibilityFlags
        self.constraintFlags = constraintFlags
        self.levelIDC = levelIDC
    }

    /// The profile's name, such as "Main" or "Main 10".
    package var profileName: String {
        switch profileIDC {
        case 1: "Main"
        case 2: "Main 10"
        case 3: "Main Still Picture"
        case 4: "Range Extensions"
        default: "profile \(profileIDC)"
        }
    }

    /// The level as people write it: "3.1" for `levelIDC` 93.
    package var levelName: String {
        levelIDC % 30 == 0 ? "\(levelIDC / 30)" : "\(levelIDC / 30).\(levelIDC % 30 / 3)"
    }
}
