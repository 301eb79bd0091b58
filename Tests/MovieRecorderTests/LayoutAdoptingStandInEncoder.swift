import Synchronization
@testable import MovieContainer
@_spi(DeviceRig) @testable import MovieCapture
@testable import MovieEncoding

/// Stands in for a hardware encoder that takes a camera's YUYV (bcm2835-codec's kind), with
/// real x264 underneath: it adopts YUYV when told to, and counts what the recording hands it —
/// frames lent the camera's own picture, and any whose I420 planes something made before it
/// got them. Only then does x264 read the planes.
final class LayoutAdoptingStandInEncoder: VideoEncoder, @unchecked Sendable {
    // @unchecked: used by one thread at a time (the recording's encoding thread); `seen` is locked.
    struct Seen: Sendable {
        var frames = 0
        var lent = 0
        var convertedBeforeEncoding = 0
    }

    let format: VideoFormat
    private let encoder: H264Encoder
    private let adopts: Bool
    let seen = Mutex(Seen())

    init(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings, adopting: Bool) throws {
        var software = settings
        software.encoder = .software
        self.format = format
        adopts = adopting
        encoder = try H264Encoder(format: format, timescale: timescale, settings: software)
    }

    func adoptCameraLayout(_ layout: V4L2PixelFormat) -> Bool { adopts && layout == .yuyv }

    func trackFormat(timescale: UInt32, orientation: VideoOrientation, nominalFrameDuration: UInt32?,
                     color: ColorDescription?) -> VideoTrackFormat {
        encoder.trackFormat(timescale: timescale, orientation: orientation, nominalFrameDuration: nominalFrameDuration, color: color)
    }

    func encode(_ frame: VideoFrame, presentationTime: Int64, forceKeyframe: Bool) throws -> EncodedVideoSample? {
        let lent = frame.nativePicture?.pixelFormat == .yuyv, converted = frame.convertedOnDemand
        seen.withLock { s in
            s.frames += 1
            if lent { s.lent += 1 }
            if converted { s.convertedBeforeEncoding += 1 }
        }
        return try encoder.encode(frame, presentationTime: presentationTime, forceKeyframe: forceKeyframe)
    }

    func flush() throws -> [EncodedVideoSample] { try encoder.flush() }

    func close() { encoder.close() }
}
