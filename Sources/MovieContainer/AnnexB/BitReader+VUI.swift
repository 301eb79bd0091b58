extension BitReader {
    /// Reads the start of the VUI, which H.264 (§E.1.1) and HEVC (§E.2.1) share: the sample
    /// aspect ratio, overscan, and the video signal type with its colour description.
    mutating func readPictureVUI() throws(MovieFormatError) -> (aspectRatio: SampleAspectRatio?, color: ColorDescription?) {
        var aspectRatio: SampleAspectRatio?, color: ColorDescription?
        if try flag() {  // aspect_ratio_info_present_flag
            let idc = try bits(8)
            aspectRatio = idc == 255 ? SampleAspectRatio(horizontal: try bits(16), vertical: try bits(16)) : SampleAspectRatio(indicator: idc)
        }
        if try flag() { _ = try flag() }  // overscan
        if try flag() {  // video_signal_type_present_flag
            _ = try bits(3)
            let fullRange = try flag()
            if try flag() {
                color = ColorDescription(primaries: UInt16(try bits(8)), transferFunction: UInt16(try bits(8)),
                                         matrix: UInt16(try bits(8)), isFullRange: fullRange)
            }
        }
        return (aspectRatio, color)
    }
}
