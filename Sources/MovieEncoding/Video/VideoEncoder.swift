import MovieContainer
import MoviePlatform
import MovieCapture

/// A video encoder a recording drives from its encoding thread: frames in, access units of
/// length-prefixed NAL units out, the parameter sets kept for the sample description.
package protocol VideoEncoder: AnyObject, Sendable {
    /// The frames it takes.
    var format: VideoFormat { get }
    /// The sample description for a movie track of this stream ('avc1' or 'hvc1').
    func trackFormat(timescale: UInt32, orientation: VideoOrientation, nominalFrameDuration: UInt32?,
                     color: ColorDescription?) -> VideoTrackFormat
    /// Encodes a frame stamped `presentationTime` (track ticks, increasing); returns the access
    /// unit the encoder finished, if any (with B-frames and lookahead, output lags input).
    func encode(_ frame: VideoFrame, presentationTime: Int64, forceKeyframe: Bool) throws -> EncodedVideoSample?
    /// Another access unit already finished after the one `encode` returned (a hardware
    /// encoder's drain finishes several at once); nil when there is none. Taken after each
    /// `encode`, so finished units do not wait for the end.
    func nextSample() -> EncodedVideoSample?
    /// Asks it to take pictures in a camera's own packed `layout` (YUYV, UYVY) from the first
    /// frame it encodes, from frames lent them (``VideoFrame`` `nativePicture`) without their
    /// I420 planes; returns whether it will. Called before the track format is read.
    func adoptCameraLayout(_ layout: V4L2PixelFormat) -> Bool
    /// Drains the frames the encoder still holds; call at the end.
    func flush() throws -> [EncodedVideoSample]
    /// Releases the encoder library's encoder.
    func close()
}

/// Opens an encoder for frames of a format, stamped in ticks of a timescale, with settings.
package typealias VideoEncoderMaker = @Sendable (VideoFormat, UInt32, VideoEncoderSettings) throws -> any VideoEncoder

extension VideoEncoder {
    /// None: a software encoder finishes at most one access unit per frame.
    package func nextSample() -> EncodedVideoSample? { nil }
    /// Never: a software encoder reads I420 or NV12 planes.
    package func adoptCameraLayout(_ layout: V4L2PixelFormat) -> Bool { false }
}

/// Opens the encoder `settings.encoder` and `settings.codec` name for frames of `format` stamped
/// in ticks of `timescale`: libx264 or libx265, or a V4L2 hardware encoder (``automatic``: the
/// first that makes the codec at the size and opens, else software).
/// - Throws: ``EncoderError`` naming the setting the library or device refused, or the package to install.
package func makeVideoEncoder(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings) throws -> any VideoEncoder {
    try chooseVideoEncoder(format: format, timescale: timescale, settings: settings).encoder
}

/// Opens the encoder as ``makeVideoEncoder(format:timescale:settings:)`` does; with
/// ``VideoEncoderSettings/Encoder/automatic`` also says which one it took and why.
package func chooseVideoEncoder(format: VideoFormat, timescale: UInt32,
                                settings: VideoEncoderSettings) throws -> (encoder: any VideoEncoder, choice: VideoEncoderChoice?) {
    switch settings.encoder {
    case .software:
        return (try makeSoftwareVideoEncoder(format: format, timescale: timescale, settings: settings), nil)
    case .hardware(let device):
        return (try V4L2VideoEncoder(device: device, format: format, settings: settings), nil)
    case .automatic:
        let wanted = "\(settings.codec == .h264 ? "H.264" : "HEVC") at \(format.width)x\(format.height)"
        var passedOver: [String] = []
        for device in VideoEncoderDevice.devices() {
            guard device.encodes(settings.codec, width: format.width, height: format.height) else {
                passedOver.append("\(device.path) (\(device.driver)) does not offer \(wanted)")
                continue
            }
            do {
                let encoder = try V4L2VideoEncoder(device: device.path, format: format, settings: settings)
                return (encoder, VideoEncoderChoice(device: device.path, encoder: "\(device.driver) on \(device.path)",
                                                    reason: "it encodes \(wanted)"))
            } catch {
                passedOver.append((error as? EncoderError)?.message ?? "\(device.path): opening failed: \(error)")
            }
        }
        let software = try makeSoftwareVideoEncoder(format: format, timescale: timescale, settings: settings)
        let why = passedOver.isEmpty ? "no hardware encoder is present" : passedOver.joined(separator: "; ")
        return (software, VideoEncoderChoice(device: nil, encoder: settings.codec == .h264 ? "libx264" : "libx265",
                                             reason: "no hardware encoder takes \(wanted): \(why)"))
    }
}

/// libx264 or libx265, by `settings.codec`.
private func makeSoftwareVideoEncoder(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings) throws -> any VideoEncoder {
    switch settings.codec {
    case .h264: try H264Encoder(format: format, timescale: timescale, settings: settings)
    case .hevc: try HEVCEncoder(format: format, timescale: timescale, settings: settings)
    }
}

/// The codecs whose encoder library opens on this machine, H.264 first.
package func availableVideoCodecTypes() -> [VideoCodecType] {
    VideoCodecType.allCases.filter { ($0 == .h264 ? SystemLibrary.x264 : SystemLibrary.x265).load() == nil }
}
