import Synchronization
@testable import MovieContainer
@testable import MovieCapture
@testable import MovieEncoding

/// Stands in for a hardware encoder without a force-keyframe control (vicodec's kind), with
/// real x264 underneath and no B-frames, as the hardware has none: a keyframe asked for drains
/// the stream and starts a new one, as ``V4L2VideoEncoder`` does with the driver's reset, so the
/// drain's burst of access units reaches the recording through `nextSample()`. Between resets
/// it makes keyframes only at its own interval.
final class ResettingStandInEncoder: VideoEncoder, @unchecked Sendable {
    // @unchecked: used by one thread at a time (the recording's encoding thread).
    let format: VideoFormat
    private let timescale: UInt32
    private let settings: VideoEncoderSettings
    private var encoder: H264Encoder
    private var pending: [EncodedVideoSample] = []
    private var sinceStart = 0
    /// How many times a keyframe was asked for mid-stream, each a drain and a reset.
    let resets = Mutex(0)

    init(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings) throws {
        var software = settings
        software.encoder = .software
        software.maxBFrames = 0
        software.options["scenecut"] = "0"  // hardware makes keyframes at its interval only
        self.format = format
        self.timescale = timescale
        self.settings = software
        encoder = try H264Encoder(format: format, timescale: timescale, settings: software)
    }

    func trackFormat(timescale: UInt32, orientation: VideoOrientation, nominalFrameDuration: UInt32?,
                     color: ColorDescription?) -> VideoTrackFormat {
        encoder.trackFormat(timescale: timescale, orientation: orientation, nominalFrameDuration: nominalFrameDuration, color: color)
    }

    func encode(_ frame: VideoFrame, presentationTime: Int64, forceKeyframe: Bool) throws -> EncodedVideoSample? {
        if forceKeyframe && sinceStart > 0 {
            pending += try encoder.flush()
            encoder.close()
            encoder = try H264Encoder(format: format, timescale: timescale, settings: settings)
            sinceStart = 0
            resets.withLock { $0 += 1 }
        }
        sinceStart += 1
        if let sample = try encoder.encode(frame, presentationTime: presentationTime, forceKeyframe: false) { pending.append(sample) }
        return nextSample()
    }

    func nextSample() -> EncodedVideoSample? { pending.isEmpty ? nil : pending.removeFirst() }

    func flush() throws -> [EncodedVideoSample] {
        defer { pending = [] }
        return pending + (try encoder.flush())
    }

    func close() { encoder.close() }
}
