import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// The live thread's encoders and timeline: turns pictures and audio buffers into CMAF chunks,
/// and decides where parts and segments start.
///
/// The video timeline is 90 kHz, each picture placed on the frame grid from its capture time
/// (so a dropped picture leaves a gap of whole frames, and jitter none). A segment starts with
/// an IDR forced every ``LiveStreamSettings/segmentDuration`` and at every change of
/// orientation (a new initialization segment, its matrix turned, follows for HLS); a part ends
/// before it would pass ``LiveStreamSettings/partTarget``. AAC access units ride in the next
/// picture's chunk, timed by their sample count from the first buffer's capture time.
final class LiveStreamEncoder {
    static let timescale: UInt32 = 90_000

    private let video: H264Encoder
    private let aac: AACEncoder?
    private var writer: CMAFWriter
    /// The same stream without its audio, for a viewer that does not listen: a browser holds
    /// several times less in hand when there is no audio to keep in step.
    private var pictureWriter: CMAFWriter
    private let frameNanoseconds: UInt64
    private let frameTicks: UInt64
    private let partTicks: UInt64
    private let segmentTicks: UInt64

    private var firstTimestamp: UInt64?
    private var lastIndex: Int64 = -1
    /// When the next IDR is asked for.
    private var nextSegmentAt: UInt64 = 0
    private var partStart: UInt64 = 0
    /// Where the segment being written started, on the encoder's output side.
    private var segmentStart: UInt64 = 0
    /// The orientation of the last picture given to the encoder.
    private var orientation: VideoOrientation?
    /// Pictures given to the encoder and not back yet, oldest first.
    private var waiting: [WaitingPicture] = []
    private var part = PartInProgress()
    private var sequenceNumber = -1
    /// Where access units go for the RTSP server, and the first picture's wall-clock capture time.
    private let tap: EncodedStreamTap?
    private var firstWallClock: UInt64?

    /// AAC units waiting for the next picture's chunk.
    private var pendingAudio: [CMAFSample] = []
    /// Where the next AAC unit starts, in samples on the stream's timeline (priming included);
    /// nil until the first buffer after the first picture.
    private var audioPosition: Int64?
    private var audioUnits: Int64 = 0
    /// Frames given to the AAC encoder, silence filling gaps included.
    private var audioInputFrames: Int64 = 0

    /// What a picture in the encoder will need when it comes out.
    private struct WaitingPicture {
        var time: UInt64
        var captureTime: UInt64
        var orientation: VideoOrientation
        /// Whether its orientation differs from the picture's before it.
        var turned: Bool
    }

    /// What the part in progress has gathered for the application.
    private struct PartInProgress {
        var bytes: [UInt8] = []
        var index = 0
        var isIndependent = false
        var start: UInt64 = 0
        var end: UInt64 = 0
        var captureTime: UInt64 = 0
        var orientation = VideoOrientation.up
    }

    init(settings: LiveStreamSettings, video format: VideoFormat, size: (width: Int, height: Int), audio: PCMFormat?,
         tap: EncodedStreamTap? = nil) throws(LiveViewError) {
        self.tap = tap
        let rate = format.frameRate
        frameNanoseconds = 1_000_000_000 * UInt64(rate.seconds) / UInt64(rate.frames)
        frameTicks = UInt64(Self.timescale) * UInt64(rate.seconds) / UInt64(rate.frames)
        let partFrames = max(1, UInt64(settings.partTarget / .nanoseconds(Int64(frameNanoseconds))))
        partTicks = partFrames * frameTicks
        let segmentParts = max(1, (UInt64(settings.segmentDuration / .nanoseconds(Int64(partTicks * 1_000_000_000 / UInt64(Self.timescale))))))
        segmentTicks = segmentParts * partTicks
        var encoderSettings = VideoEncoderSettings()
        encoderSettings.preset = settings.preset
        encoderSettings.tune = "zerolatency"
        encoderSettings.rateControl = settings.rateControl
        encoderSettings.keyframeInterval = Int(segmentTicks / frameTicks) * 10
        encoderSettings.maxBFrames = 0
        encoderSettings.threads = 1
        // Variable-frame-rate input costs x264 a frame of delay (it waits for the next timestamp);
        // the live timeline is on the frame grid anyway.
        encoderSettings.options = ["scenecut": "0", "force-cfr": "1"]
        let small = VideoFormat(width: size.width, height: size.height, pixelFormat: .i420, frameRate: rate, color: format.color)
        do {
            video = try H264Encoder(format: small, timescale: Self.timescale, settings: encoderSettings)
        } catch {
            throw LiveViewError(.invalidSettings, "LiveStreamOutput: starting the stream's H.264 encoder: \((error as? EncoderError)?.message ?? "\(error)")")
        }
        do {
            aac = try audio.map { pcm throws(EncoderError) in
                try AACEncoder(input: pcm, bitRate: settings.audioBitRatePerChannel * Int(pcm.channelCount))
            }
        } catch {
            video.close()
            throw LiveViewError(.invalidSettings, "LiveStreamOutput: starting the stream's AAC encoder: \(error.message)")
        }
        writer = CMAFWriter(video: VideoTrackFormat(h264: video.configuration, timescale: Self.timescale,
                                                    nominalFrameDuration: UInt32(frameTicks), color: format.color),
                            audio: aac?.format)
        pictureWriter = CMAFWriter(video: writer.video, audio: nil)
    }

    private func seconds(_ ticks: UInt64) -> Double { Double(ticks) / Double(Self.timescale) }

    /// `ticks` of the 90 kHz timeline as a duration, exact for any length of stream.
    private static func duration(_ ticks: UInt64) -> Duration {
        .seconds(Int64(ticks / UInt64(timescale))) + .nanoseconds(Int64(ticks % UInt64(timescale) * 1_000_000_000 / UInt64(timescale)))
    }

    /// Encodes a picture; the chunk of whichever picture the encoder gives back goes out.
    func encode(_ frame: VideoFrame, orientation current: VideoOrientation) -> [LiveStreamOutputEvent] {
        var events: [LiveStreamOutputEvent] = []
        if firstTimestamp == nil {
            firstTimestamp = frame.timestamp
            firstWallClock = Self.wallClock(of: frame.timestamp)
            if let tap, let format = EncodedVideoFormat(writer.video) {
                tap.publish(.videoFormat(format))
                tap.publish(.audioFormat(aac.map { EncodedAudioFormat($0.format) }))
            }
            events.append(.begin(LiveStreamStart(codecs: writer.codecs, pictureCodecs: pictureWriter.codecs,
                                                 pageInitialization: writer.initializationSegment(orientation: .up),
                                                 picturePageInitialization: pictureWriter.initializationSegment(orientation: .up),
                                                 timescale: Self.timescale, partTarget: seconds(partTicks), segmentDuration: seconds(segmentTicks))))
        }
        let time = decodeTime(of: frame)
        let turned = orientation != current
        orientation = current
        let force = turned || time >= nextSegmentAt
        if force { nextSegmentAt = time + segmentTicks }
        waiting.append(WaitingPicture(time: time, captureTime: Self.wallClock(of: frame.timestamp), orientation: current, turned: turned))
        do {
            if let sample = try video.encode(frame, presentationTime: Int64(time), forceKeyframe: force) { events += chunk(sample) }
        } catch {
            events.append(.failed("LiveStreamOutput: encoding a picture: \(error)"))
        }
        return events
    }

    /// Places a picture on the 90 kHz frame grid from its capture time.
    private func decodeTime(of frame: VideoFrame) -> UInt64 {
        let elapsed = frame.timestamp >= firstTimestamp! ? frame.timestamp - firstTimestamp! : 0
        var index = Int64((elapsed + frameNanoseconds / 2) / frameNanoseconds)
        if index <= lastIndex { index = lastIndex + 1 }
        lastIndex = index
        return UInt64(index) * frameTicks
    }

    /// Writes the chunk of one encoded picture and the audio waiting for it; starts and
    /// completes parts and segments around it.
    private func chunk(_ sample: EncodedVideoSample) -> [LiveStreamOutputEvent] {
        let time = UInt64(max(0, sample.presentationTime))
        while waiting.count > 1 && waiting[0].time < time { waiting.removeFirst() }
        guard let picture = waiting.first else { return [] }
        waiting.removeFirst()
        var events: [LiveStreamOutputEvent] = []
        let startsSegment = sample.isKeyframe
        let startsPart = startsSegment || time + frameTicks > partStart + partTicks
        if startsPart, let finished = finishPart() { events.append(finished) }
        if picture.turned {
            events.append(.initialization(writer.initializationSegment(orientation: picture.orientation)))
        }
        if startsSegment {
            sequenceNumber += 1
            segmentStart = time
        }
        var bytes = picture.turned ? LiveStreamMessages.orientation(picture.orientation, timescale: Self.timescale, time: time) : []
        let video = CMAFSample(data: sample.data, decodeTime: time, duration: UInt32(frameTicks), isSync: sample.isKeyframe)
        tapVideo(sample, captureTime: picture.captureTime, orientation: picture.orientation)
        let message = bytes
        bytes += writer.chunk(video: [video], audio: pendingAudio, captureTime: picture.captureTime)
        let pictureOnly = aac == nil ? nil : message + pictureWriter.chunk(video: [video], audio: [], captureTime: picture.captureTime)
        pendingAudio.removeAll()
        if startsPart {
            partStart = time
            part = PartInProgress(index: startsSegment ? 0 : part.index + 1, isIndependent: sample.isKeyframe, start: time,
                                  captureTime: picture.captureTime, orientation: picture.orientation)
        }
        part.bytes += bytes
        part.end = time + frameTicks
        events.append(.chunk(LiveChunk(bytes: bytes, pictureBytes: pictureOnly, time: time, end: time + frameTicks, isIndependent: sample.isKeyframe,
                                       startsSegment: startsSegment, startsPart: startsPart, orientation: picture.orientation,
                                       captureTime: picture.captureTime)))
        // The part is complete once the next picture would not fit it; the segment too once the
        // next picture is the one an IDR is asked for.
        if time + 2 * frameTicks > partStart + partTicks, let finished = finishPart() {
            events.append(finished)
            if time + frameTicks >= segmentStart + segmentTicks { events.append(.segmentComplete) }
        }
        return events
    }

    /// Completes the part in progress, if it holds anything.
    func finishPart() -> LiveStreamOutputEvent? {
        guard !part.bytes.isEmpty else { return nil }
        let report = LiveSegmentReport(segmentSequenceNumber: sequenceNumber, partIndex: part.index, isIndependent: part.isIndependent,
                                       earliestPresentationTime: Self.duration(part.start), duration: Self.duration(part.end - part.start),
                                       captureTime: part.captureTime, orientation: part.orientation)
        let finished = LiveSegment(kind: .part, data: part.bytes, report: report)
        part.bytes = []
        return .partComplete(finished)
    }

    /// Encodes an audio buffer; its AAC units wait for the next picture's chunk.
    func encode(_ buffer: AudioBuffer) -> [LiveStreamOutputEvent] {
        guard let aac, let first = firstTimestamp, buffer.timestamp >= first else { return [] }
        let rate = UInt64(aac.format.sampleRate), elapsed = buffer.timestamp - first
        let at = Int64(elapsed / 1_000_000_000 * rate + elapsed % 1_000_000_000 * rate / 1_000_000_000)
        if audioPosition == nil { audioPosition = at }
        // A buffer lost on the way (the queue was full) or an overrun leaves a gap: it is filled
        // with silence, up to a second, so the audio after it stays in step with the picture. A
        // buffer from before where the audio has got to is left out.
        let expected = audioPosition! + audioInputFrames
        let frame = Int64(AACFormat.framesPerPacket)
        if at < expected - 2 * frame { return [] }
        var pcm = buffer.bytes
        if at > expected + 2 * frame {
            pcm = [UInt8](repeating: 0, count: Int(min(at - expected, Int64(rate))) * aac.input.bytesPerFrame) + pcm
        }
        audioInputFrames += Int64(pcm.count / aac.input.bytesPerFrame)
        do {
            try pcm.withUnsafeBytes { pcm in
                try aac.encode(pcm) { unit in self.queueAudio(Array(unit)) }
            }
        } catch {
            return [.failed("LiveStreamOutput: encoding audio: \(error)")]
        }
        return []
    }

    /// Queues one AAC unit at its place on the timeline; those that fall before the stream's
    /// start (the encoder's priming) are left out.
    private func queueAudio(_ unit: [UInt8]) {
        let frames = Int64(AACFormat.framesPerPacket)
        let start = audioPosition! + audioUnits * frames - Int64(aac!.format.primingFrames)
        audioUnits += 1
        guard start >= 0 else { return }
        tapAudio(unit, start: start, rate: Int64(aac!.format.sampleRate))
        pendingAudio.append(CMAFSample(data: unit, decodeTime: UInt64(start), duration: UInt32(frames), isSync: true))
        // While no picture comes to carry them (a stalled camera), at most two seconds wait.
        if pendingAudio.count > 94 { pendingAudio.removeFirst(pendingAudio.count - 94) }
    }

    /// Writes the pictures still in the encoder, closes the encoders and completes the last part.
    func finish() -> [LiveStreamOutputEvent] {
        var events: [LiveStreamOutputEvent] = []
        if let delayed = try? video.flush() { for sample in delayed { events += chunk(sample) } }
        video.close()
        aac?.close()
        return events + (finishPart().map { [$0] } ?? [])
    }

    /// The wall-clock time, in nanoseconds since 1970 UTC, of a monotonic capture time.
    private static func wallClock(of monotonic: UInt64) -> UInt64 { SystemClock.unixNanoseconds(ofMonotonic: monotonic) }

    /// Hands a picture's access unit to the RTSP server, if it listens.
    private func tapVideo(_ sample: EncodedVideoSample, captureTime: UInt64, orientation: VideoOrientation) {
        guard let tap, tap.hasSubscribers else { return }
        tap.publish(.sample(EncodedStreamSample(kind: .video, bytes: sample.data, presentation: captureTime, decode: captureTime,
                                                duration: frameNanoseconds, isKeyframe: sample.isKeyframe, orientation: orientation)))
    }

    /// Hands an AAC unit starting `start` samples into the stream to the RTSP server, if it listens.
    private func tapAudio(_ unit: [UInt8], start: Int64, rate: Int64) {
        guard let tap, tap.hasSubscribers, let firstWallClock else { return }
        let time = firstWallClock + UInt64(start) * 1_000_000_000 / UInt64(rate)
        tap.publish(.sample(EncodedStreamSample(kind: .audio, bytes: unit, presentation: time, decode: time,
                                                duration: UInt64(AACFormat.framesPerPacket) * 1_000_000_000 / UInt64(rate), isKeyframe: true)))
    }
}
