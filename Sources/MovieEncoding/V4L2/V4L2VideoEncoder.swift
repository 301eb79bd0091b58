import MovieContainer
import MoviePlatform
import MovieCapture

/// H.264 or HEVC from a V4L2 stateful memory-to-memory encoder (a Raspberry Pi 4's
/// bcm2835-codec, Venus, MFC…), behind the same protocol as x264 and x265, so the recording,
/// segments, fragments and repair treat its stream as theirs.
///
/// What the drivers are known to get wrong, and what this does about it:
/// - parameter sets only with the first frame, so a movie's `avcC` cannot be written before
///   encoding (raspberrypi/linux #5150): one grey picture is encoded at opening to learn them,
///   then the stream is reset, so the recording's first frame starts a stream of its own;
/// - parameter sets not repeated (bookworm-feedback #285): `REPEAT_SEQ_HEADER` is asked for (the
///   movie keeps them in its sample description either way);
/// - a default level too low for the size, which encodes nothing (raspberrypi/linux #3974): the
///   level is always set, from the size and rate;
/// - controls set by another process, which never reach this stream (firmware #1612): every
///   control is set on its own descriptor before streaming;
/// - B-frames: asked off, so decode order is presentation order.
///
/// Times travel as the stream's picture numbers, mapped back here, so a driver's handling of
/// timestamps cannot reorder or lose them. Used from one thread at a time.
package final class V4L2VideoEncoder: VideoEncoder, @unchecked Sendable {
    // @unchecked: used by one thread at a time (the recording's encoding thread).
    package let format: VideoFormat
    package let device: String
    private let stream: V4L2EncoderStream
    private var bitstream: HardwareBitstream
    private var configuration: VideoDecoderConfiguration
    /// Whether the driver can be told to make the next picture a keyframe; without it a
    /// keyframe costs a drain and a reset of the stream.
    package var canForceKeyframes: Bool { stream.canForceKeyframes }
    private var times: [UInt64: Int64] = [:]
    private var nextNumber: UInt64 = 1
    private var pending: [EncodedVideoSample] = []

    /// Opens `device` for `settings.codec` at `format`'s size and rate.
    /// - Throws: ``EncoderError`` naming the device and the step it refused or failed.
    package init(device: String, format: VideoFormat, settings: VideoEncoderSettings) throws {
        self.format = format
        self.device = device
        let codec: AnnexBStream.Codec = settings.codec == .h264 ? .h264 : .hevc
        var configuration = V4L2EncoderStream.Configuration(
            codedFormat: V4L2PixelFormat(settings.codec == .h264 ? "H264" : "HEVC")!, pictureFormat: format.pixelFormat,
            width: format.width, height: format.height, frameRate: format.frameRate)
        configuration.controls = try Self.controls(settings, format: format)
        let stream = try V4L2EncoderStream(path: device, configuration: configuration)
        var bitstream = HardwareBitstream(codec: codec)
        do {
            self.configuration = try Self.learnParameterSets(stream, format: format, into: &bitstream, device: device)
        } catch {
            stream.close()
            throw error
        }
        self.stream = stream
        self.bitstream = bitstream
    }

    deinit { stream.close() }

    /// Takes pictures in a camera's `layout` (YUYV, UYVY) from the recording's first picture on,
    /// when the device takes it. The parameter sets are learnt again from a grey picture in that
    /// layout, which also proves the device takes it at this size; when it does not, pictures
    /// stay planar (false).
    package func adoptCameraLayout(_ layout: V4L2PixelFormat) -> Bool {
        guard stream.adoptCameraLayout(layout) else { return false }
        var relearnt = HardwareBitstream(codec: bitstream.codec)
        do {
            let found = try Self.learnParameterSets(stream, format: format, into: &relearnt, device: device)
            guard stream.cameraLayout == layout else { return false }  // the driver refused it: planar
            configuration = found
            bitstream = relearnt
            return true
        } catch {
            stream.abandonCameraLayout()
            MovieRecorderLogging.log(.warning, "encoder", "\(device): pictures go in as I420: taking \(layout) failed: \(error)")
            return false
        }
    }

    /// The controls for `settings`, required ones first: the level and the GOP every encoder
    /// has; the rest set where the driver has them.
    static func controls(_ settings: VideoEncoderSettings, format: VideoFormat) throws -> [V4L2EncoderStream.Control] {
        let h264 = settings.codec == .h264
        let gop = Int32(settings.keyframeInterval(at: format.frameRate))
        let level = h264 ? V4L2CodecControl.h264Level(width: format.width, height: format.height, rate: format.frameRate)
                         : V4L2CodecControl.hevcLevel(width: format.width, height: format.height, rate: format.frameRate)
        let profileName = settings.effectiveProfile
        guard let profile = h264 ? V4L2CodecControl.h264Profile(profileName) : V4L2CodecControl.hevcProfile(profileName) else {
            throw EncoderError(.unsupportedFormat, message: "hardware encoder: profile '\(profileName)' has no V4L2 control value; use \(h264 ? "baseline, main or high" : "main")")
        }
        typealias Control = V4L2EncoderStream.Control
        var controls = [
            Control(id: h264 ? V4L2CodecControl.h264Profile : V4L2CodecControl.hevcProfile, value: profile, name: "the profile (\(profileName))", isRequired: false),
            Control(id: h264 ? V4L2CodecControl.h264Level : V4L2CodecControl.hevcLevel, value: level, name: "the level", isRequired: false),
            Control(id: V4L2CodecControl.gopSize, value: gop, name: "the GOP size", isRequired: false),
            Control(id: V4L2CodecControl.h264IPeriod, value: gop, name: "the keyframe period", isRequired: false),
            Control(id: V4L2CodecControl.bFrames, value: 0, name: "B-frames", isRequired: false),
            Control(id: V4L2CodecControl.repeatSequenceHeader, value: 1, name: "repeated parameter sets", isRequired: false),
            Control(id: V4L2CodecControl.prependParameterSetsToIDR, value: 1, name: "parameter sets before each IDR", isRequired: false),
            Control(id: V4L2CodecControl.headerMode, value: V4L2CodecControl.headersJoinedWithFirstFrame, name: "the header mode", isRequired: false),
        ]
        if case .bitrate(let kbps, let maximum, _)? = settings.rateControl {
            guard kbps > 0 else { throw EncoderError(.unsupportedFormat, message: "hardware encoder: bitrate \(kbps) kbit/s must be positive") }
            let constant = maximum == kbps
            controls += [
                Control(id: V4L2CodecControl.bitrateMode, value: constant ? V4L2CodecControl.constantBitrate : V4L2CodecControl.variableBitrate,
                        name: "the bitrate mode", isRequired: false),
                Control(id: V4L2CodecControl.bitrate, value: Int32(clamping: kbps * 1000), name: "the bitrate (\(kbps) kbit/s)", isRequired: true),
            ]
        }
        return controls
    }

    /// Encodes one mid-grey picture to read the parameter sets the driver puts in front of its
    /// first frame, then resets the stream so the recording's first frame starts a new one.
    private static func learnParameterSets(_ stream: V4L2EncoderStream, format: VideoFormat, into bitstream: inout HardwareBitstream,
                                           device: String) throws -> VideoDecoderConfiguration {
        let size = format.pixelFormat.byteCount(width: format.width, height: format.height)
        let grey = try VideoFrame(copying: [UInt8](repeating: 128, count: size), width: format.width, height: format.height,
                                  pixelFormat: format.pixelFormat, timestamp: 0, sequenceNumber: 0)
        try stream.submit(grey, number: 0)
        var coded = try stream.drain()
        if coded.isEmpty, let late = try stream.takeCoded(waiting: .seconds(5)) { coded.append(late) }
        for frame in coded { _ = bitstream.convert(frame.bytes) }
        guard let found = try bitstream.configuration() else {
            throw EncoderError(.unsupportedFormat, message: "\(device): reading the parameter sets failed: the first coded frame (\(coded.map(\.bytes.count)) bytes) held no complete set of them")
        }
        try stream.restart()
        return found
    }

    package func trackFormat(timescale: UInt32, orientation: VideoOrientation, nominalFrameDuration: UInt32?,
                             color: ColorDescription?) -> VideoTrackFormat {
        switch configuration {
        case .h264(let avc):
            VideoTrackFormat(h264: avc, timescale: timescale, orientation: orientation, nominalFrameDuration: nominalFrameDuration, color: color)
        case .hevc(let hevc):
            VideoTrackFormat(hevc: hevc, timescale: timescale, orientation: orientation, nominalFrameDuration: nominalFrameDuration, color: color)
        }
    }

    /// Queues `frame` for the encoder and returns the oldest access unit it has finished, if
    /// any. `forceKeyframe` makes `frame` a keyframe: through the driver's control, or by
    /// draining and resetting the stream where it has none (``canForceKeyframes``).
    package func encode(_ frame: VideoFrame, presentationTime: Int64, forceKeyframe: Bool) throws -> EncodedVideoSample? {
        if forceKeyframe {
            for coded in try stream.requestKeyframe() { try take(coded) }
        }
        let number = nextNumber
        nextNumber += 1
        times[number] = presentationTime
        try stream.submit(frame, number: number)
        while let coded = try stream.takeCoded() { try take(coded) }
        return nextSample()
    }

    /// The next access unit finished beside the one `encode` returned: after a drain for a
    /// keyframe, several come at once.
    package func nextSample() -> EncodedVideoSample? {
        pending.isEmpty ? nil : pending.removeFirst()
    }

    /// Drains the encoder: every access unit still to come.
    package func flush() throws -> [EncodedVideoSample] {
        for coded in try stream.drain() { try take(coded) }
        defer { pending = [] }
        return pending
    }

    package func close() { stream.close() }

    /// Converts a coded buffer into a sample at its picture's time. A buffer of headers alone
    /// (a driver's separate header mode) adds nothing; parameter sets that change mid-stream
    /// would no longer match the movie's sample description, so they are an error.
    private func take(_ coded: V4L2EncoderStream.CodedFrame) throws {
        let unit = bitstream.convert(coded.bytes)
        if unit.changesParameterSets {
            throw EncoderError(.failed, message: "\(device): encoding failed: the encoder changed its parameter sets mid-stream; record in segments or at a fixed bitrate")
        }
        guard !unit.data.isEmpty, let time = times.removeValue(forKey: coded.number) else { return }
        pending.append(EncodedVideoSample(data: unit.data, presentationTime: time, decodeTime: time, isKeyframe: unit.isKeyframe))
    }
}
