import MovieContainer

/// The V4L2 codec controls the hardware encoder sets (`V4L2_CID_MPEG_VIDEO_*` in
/// `<linux/v4l2-controls.h>`: `V4L2_CID_CODEC_BASE` (0x990900) plus an offset), and the levels it
/// computes for them.
enum V4L2CodecControl {
    static let bFrames: UInt32 = 0x0099_09CA
    static let gopSize: UInt32 = 0x0099_09CB
    static let bitrateMode: UInt32 = 0x0099_09CE
    static let bitrate: UInt32 = 0x0099_09CF
    static let headerMode: UInt32 = 0x0099_09D8
    static let repeatSequenceHeader: UInt32 = 0x0099_09E2
    static let forceKeyFrame: UInt32 = 0x0099_09E5
    static let h264IPeriod: UInt32 = 0x0099_0A66
    static let h264Level: UInt32 = 0x0099_0A67
    static let h264Profile: UInt32 = 0x0099_0A6B
    static let hevcProfile: UInt32 = 0x0099_0B67
    static let hevcLevel: UInt32 = 0x0099_0B68
    static let prependParameterSetsToIDR: UInt32 = 0x0099_0B84

    /// `V4L2_MPEG_VIDEO_BITRATE_MODE_VBR` and `_CBR`.
    static let variableBitrate: Int32 = 0
    static let constantBitrate: Int32 = 1
    /// `V4L2_MPEG_VIDEO_HEADER_MODE_JOINED_WITH_1ST_FRAME`: parameter sets in the first frame's buffer.
    static let headersJoinedWithFirstFrame: Int32 = 1

    /// The `V4L2_MPEG_VIDEO_H264_PROFILE_*` value of a profile name; nil for one it has none of.
    static func h264Profile(_ name: String) -> Int32? {
        ["baseline": 0, "constrained-baseline": 1, "main": 2, "high": 4][name]
    }

    /// The `V4L2_MPEG_VIDEO_HEVC_PROFILE_*` value of a profile name.
    static func hevcProfile(_ name: String) -> Int32? {
        ["main": 0, "mainstillpicture": 1, "main10": 2][name]
    }

    /// The lowest H.264 level (`V4L2_MPEG_VIDEO_H264_LEVEL_*`, 3.0 = 8 … 5.2 = 16) whose
    /// macroblocks per frame and per second (ITU-T H.264 table A-1) hold `width`x`height` at
    /// `rate`, never below 3.0: bcm2835-codec stalls below it, and a driver's default may be
    /// too low for the size (raspberrypi/linux #3974: it encodes nothing until a level is set).
    static func h264Level(width: Int, height: Int, rate: FrameRate) -> Int32 {
        let frame = ((width + 15) / 16) * ((height + 15) / 16)
        let perSecond = (frame * Int(rate.frames) + Int(rate.seconds) - 1) / Int(max(1, rate.seconds))
        let levels: [(value: Int32, frame: Int, perSecond: Int)] = [
            (8, 1_620, 40_500), (9, 3_600, 108_000), (10, 5_120, 216_000), (11, 8_192, 245_760), (12, 8_192, 245_760),
            (13, 8_704, 522_240), (14, 22_080, 589_824), (15, 36_864, 983_040), (16, 36_864, 2_073_600),
        ]
        return levels.first { frame <= $0.frame && perSecond <= $0.perSecond }?.value ?? 16
    }

    /// The lowest HEVC level (`V4L2_MPEG_VIDEO_HEVC_LEVEL_*`, 3 = 3 … 5.2 = 9) whose luma
    /// picture size and sample rate (ITU-T H.265 table A.8) hold the pictures, never below 3.
    static func hevcLevel(width: Int, height: Int, rate: FrameRate) -> Int32 {
        let picture = width * height
        let perSecond = (picture * Int(rate.frames) + Int(rate.seconds) - 1) / Int(max(1, rate.seconds))
        let levels: [(value: Int32, picture: Int, perSecond: Int)] = [
            (3, 552_960, 16_588_800), (4, 983_040, 33_177_600), (5, 2_228_224, 66_846_720), (6, 2_228_224, 133_693_440),
            (7, 8_912_896, 267_386_880), (8, 8_912_896, 534_773_760), (9, 8_912_896, 1_069_547_520),
        ]
        return levels.first { picture <= $0.picture && perSecond <= $0.perSecond }?.value ?? 9
    }
}
