/// The decoder configuration of an H.264 or HEVC stream: what its sample description carries.
package enum VideoDecoderConfiguration: Hashable, Sendable {
    /// H.264, for an 'avc1' entry with `avcC`.
    case h264(AVCDecoderConfiguration)
    /// HEVC, for an 'hvc1' entry with `hvcC`.
    case hevc(HEVCDecoderConfiguration)

    /// The configuration of `codec` from the parameter sets a stream carries.
    /// - Throws: ``MovieFormatError`` when one is missing or does not parse.
    package init(parameterSets: [[UInt8]], codec: AnnexBStream.Codec) throws(MovieFormatError) {
        switch codec {
        case .h264: self = .h264(try AVCDecoderConfiguration(parameterSets: parameterSets))
        case .hevc: self = .hevc(try HEVCDecoderConfiguration(parameterSets: parameterSets))
        }
    }

    /// The H.264 configuration, if it is one.
    package var avc: AVCDecoderConfiguration? {
        if case .h264(let configuration) = self { return configuration }
        return nil
    }

    /// The most pictures that precede a picture in decode order and follow it in display order,
    /// as the SPS states it; `nil` when an H.264 SPS does not.
    package var reorderBound: UInt32? {
        switch self {
        case .h264(let configuration): configuration.sps.maxNumReorderFrames
        case .hevc(let configuration): configuration.sps.maxNumReorderPictures
        }
    }

    /// A track of this stream, its size and colours from the SPS.
    package func trackFormat(timescale: UInt32, orientation: VideoOrientation = .up,
                             nominalFrameDuration: UInt32? = nil) -> VideoTrackFormat {
        switch self {
        case .h264(let configuration):
            VideoTrackFormat(h264: configuration, timescale: timescale, orientation: orientation, nominalFrameDuration: nominalFrameDuration)
        case .hevc(let configuration):
            VideoTrackFormat(hevc: configuration, timescale: timescale, orientation: orientation, nominalFrameDuration: nominalFrameDuration)
        }
    }
}
