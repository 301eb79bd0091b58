import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// One recording in progress: the encoders, the files and the threads that connect them.
///
/// ```
/// capture thread ──offer/push──▶ frames (bounded) ──▶ encoding thread ──push──▶ ┐
/// audio capture thread ──push──▶ audio (bounded) ──▶ audio thread ──────push──▶ writing queue (bounded) ──▶ writing thread ──▶ files
/// ```
///
/// The audio thread places each buffer on the audio track's timeline
/// (``AudioTrackTimeline``) and, for AAC, encodes it; so neither the capture thread nor the
/// writing thread ever waits for the AAC encoder.
///
/// Live frames are offered: when the encoder is behind and the frame queue's usual room is
/// full, the frame is dropped and counted (or, under ``Settings/degradesUnderPressure``, a
/// frame-rate step is taken and the frame copied into the queue's reserve), so capture never
/// stalls and memory never grows past the queue's eight frames. Frames from files
/// wait instead. Encoded samples and audio wait for room in the writing queue (back-pressure):
/// a stalled disk slows capture into counted drops and ALSA overruns rather than unbounded
/// memory. The writing thread alone touches the movie writers.
///
/// A recording may switch files (segments): at the frame where a switch is made the encoder
/// is asked for an IDR, the audio is split at that frame's time, and the writing thread
/// finishes the old file once both of its tracks are complete while the new one fills
/// (``RecordingSegment``). Every item on the writing queue names its segment.
final class RecordingPipeline: Sendable {
    let settings: Settings
    let video: (format: VideoFormat, isLive: Bool, name: String)
    let audio: (format: PCMFormat, isLive: Bool, name: String, hasOwnClock: Bool)?
    let frameDurationNanoseconds: UInt64
    let timescale: UInt32
    let state: LockedValue<State>
    /// Frames for the encoder, each with its capture time on the recording's timeline (pauses
    /// taken out) and, for the first frame of a new segment, that segment's index.
    let frames: BoundedQueue<FrameItem>
    /// How many live frames the queue takes as they come; the rest of its room takes only
    /// copies, at the deepest frame-rate step (``keepInReserve(_:)``), so queued frames never
    /// hold more of a camera's buffers than this.
    static let liveFrameLimit = 4
    /// The buffers those copies go into, as many as the queue has places, made the first time one is needed.
    let frameReserve = LockedValue<PixelBufferPool?>(nil)
    let writing = BoundedQueue<WriterItem>(capacity: 96)
    /// Audio buffers (timestamps on the recording's timeline) for the audio thread.
    let audioInput = BoundedQueue<AudioItem>(capacity: 64)
    /// The first segment's AAC encoder, which only the audio thread uses (it opens one per
    /// later segment); nil for LPCM or without audio.
    let aacEncoder: AACEncoder?
    /// The microphone clock's measurement (and correction), which only the audio thread uses;
    /// nil without audio from a device with a clock of its own.
    let clockCorrector: AudioClockCorrector?
    /// Woken when a frame is queued or the recording stops or fails: what an audio source held
    /// back by ``waitForVideo(reaching:)`` waits for.
    let videoProgressed = WakeSignal()
    let encoder: any VideoEncoder
    /// The camera's switch for lending its own YUYV or UYVY pictures, turned on while encoding
    /// when the hardware encoder takes that layout.
    let cameraLayoutLending: NativePictureSwitch?
    /// Where the encoded pictures go for an RTSP server, besides the file.
    let tap: EncodedStreamTap?
    /// What every segment's tracks hold.
    let tracks: RecordingSegment.Tracks
    /// The first segment, created with the recording; the writing thread creates the others.
    let firstSegment: RecordingSegment
    /// When the writing thread last checked the disk's free space.
    let lastDiskCheck = LockedValue<UInt64>(0)
    let onStart: @Sendable (UInt64) -> Void
    let onFinish: @Sendable (RecordingResult) -> Void
    /// Called on the writing thread when a later segment's file is created, and when a segment
    /// other than the last is finished.
    let onSegmentStart: @Sendable (String) -> Void
    let onSegmentFinish: @Sendable (RecordingResult) -> Void
    /// Called on the audio thread with each new measurement of the microphone's clock drift.
    let onClockDrift: @Sendable (Double) -> Void
    /// Called on the writing thread when an event clip begins and when it is finished, and when
    /// retention deletes a file.
    let onEvent: @Sendable (MovieFileOutput.Event) -> Void
    /// What may hold finished files back from retention (an upload queue).
    let fileObserver: (any RecordingFileObserver)?
    /// The session's pressure, told of the recording's lag and its frame-rate steps.
    let pressure: PressureCoordinator?
    /// Whether the audio is resampled to follow the system clock: a device with a clock of its
    /// own, and the correction asked for.
    var audioCorrected: Bool { clockCorrector?.isCorrecting == true }

    /// A frame for the encoding thread.
    struct FrameItem {
        var frame: VideoFrame
        var time: UInt64
        /// The segment this frame starts, if it starts one.
        var startsSegment: Int?
        /// The capture orientation when the frame was taken.
        var orientation: VideoOrientation
        /// Its arrival number, which the frame-rate steps count.
        var sequence: Int
    }

    /// What became of a live frame offered to the encoder's queue.
    enum FrameOutcome { case queued, lost, leftOut }

    /// Opens the encoders and creates the first file; nothing runs until ``start()``.
    /// - Throws: ``RecordingError`` naming what failed; no file is left behind.
    init(settings: Settings, sources: SourceDescription, onStart: @escaping @Sendable (UInt64) -> Void,
         onFinish: @escaping @Sendable (RecordingResult) -> Void,
         onSegmentStart: @escaping @Sendable (String) -> Void = { _ in },
         onSegmentFinish: @escaping @Sendable (RecordingResult) -> Void = { _ in },
         onClockDrift: @escaping @Sendable (Double) -> Void = { _ in },
         onEvent: @escaping @Sendable (MovieFileOutput.Event) -> Void = { _ in }, tap: EncodedStreamTap? = nil,
         fileObserver: (any RecordingFileObserver)? = nil) throws {
        self.tap = tap
        self.fileObserver = fileObserver
        guard let video = sources.video else {
            throw RecordingError(.notConnected, "MovieFileOutput: the session has no video input to record")
        }
        self.settings = settings
        self.video = video
        self.audio = sources.audio
        self.pressure = sources.pressure
        self.onStart = onStart
        self.onFinish = onFinish
        self.onSegmentStart = onSegmentStart
        self.onSegmentFinish = onSegmentFinish
        self.onClockDrift = onClockDrift
        self.onEvent = onEvent
        state = LockedValue(State(orientation: settings.orientation, degrades: settings.degradesUnderPressure))
        let rate = video.format.frameRate
        frameDurationNanoseconds = 1_000_000_000 * UInt64(rate.seconds) / UInt64(rate.frames)
        timescale = rate.timescale
        frames = BoundedQueue(capacity: 12)
        do {
            if let make = settings.standInEncoder {
                encoder = try make(video.format, timescale, settings.encoder)
            } else {
                let chosen = try chooseVideoEncoder(format: video.format, timescale: timescale, settings: settings.encoder)
                encoder = chosen.encoder
                if let choice = chosen.choice { onEvent(.didChooseVideoEncoder(choice)) }
            }
        } catch let error as EncoderError {
            throw RecordingError(.encoderFailed, "MovieFileOutput: starting the encoder: \(error.message)", underlyingError: error)
        }
        if let camera = sources.cameraLayout, encoder.adoptCameraLayout(camera.layout) {
            cameraLayoutLending = camera.lending
        } else {
            cameraLayoutLending = nil
        }
        do {
            aacEncoder = try Self.makeAudioEncoder(settings.audio, for: sources.audio?.format)
        } catch {
            encoder.close()
            throw RecordingError(.encoderFailed, "MovieFileOutput: starting the audio encoder: \(error.message)", underlyingError: error)
        }
        do {
            clockCorrector = try sources.audio.flatMap { audio throws(EncoderError) in
                audio.hasOwnClock ? try AudioClockCorrector(format: audio.format, correcting: settings.audioClockCorrection
                                                                && AudioResampler.takes(audio.format)) : nil
            }
        } catch {
            encoder.close()
            aacEncoder?.close()
            throw RecordingError(.encoderFailed, "MovieFileOutput: starting the audio clock correction: \(error.message); or set audioClockCorrection to false", underlyingError: error)
        }
        let aacFormat = aacEncoder?.format
        tracks = RecordingSegment.Tracks(
            video: encoder.trackFormat(timescale: timescale, orientation: settings.orientation,
                                       nominalFrameDuration: rate.frameDuration, color: nil),
            audio: sources.audio.map { audio in aacFormat.map { AudioTrackFormat(aac: $0) } ?? AudioTrackFormat(pcm: audio.format) },
            metadata: Self.metadataTracks(settings, timescale: timescale))
        do {
            firstSegment = try RecordingSegment(index: 0, path: settings.path, overwrite: settings.overwrite,
                                                orientation: settings.orientation, tracks: tracks,
                                                configuration: RecordingSegment.configuration(settings, creationTime: settings.metadataCreationTime))
        } catch {
            encoder.close()
            aacEncoder?.close()
            clockCorrector?.close()
            throw error
        }
    }

    /// Starts the encoding, audio and writing threads.
    func start() {
        cameraLayoutLending?.request()  // released when the encoder closes, at the end of encodeLoop
        let encoding = DedicatedThread(name: "movrec-encode") { [self] in encodeLoop() }
        let audioThread = audio == nil ? nil : DedicatedThread(name: "movrec-audio") { [self] in audioLoop() }
        DedicatedThread(name: "movrec-write") { [self] in
            var segments = OpenSegments(first: firstSegment, events: makeEventState())
            writeLoop(&segments)
            encoding.join()
            audioThread?.join()
            finish(&segments)
        }.detach()
    }

    // MARK: Capture threads

    func receive(_ event: VideoSourceEvent) {
        switch event {
        case .frame(let frame):
            receive(frame)
        case .dropped(let count):
            state.withLock { if $0.videoStart != nil && !$0.stopping { $0.dropped += count } }
        case .corrupted:
            state.withLock { if $0.videoStart != nil && !$0.stopping { $0.corrupted += 1 } }
        case .interrupted(let reason):
            state.withLock { $0.interruption = reason }
            beginStop(reason: RecordingError(.deviceLost, "MovieFileOutput: \(reason); the movie was finalized up to that point"))
        case .ended:
            beginStop(reason: RecordingError(.sourceEnded, "MovieFileOutput: the video source '\(video.name)' ended"))
        }
    }

    private func receive(_ frame: VideoFrame) {
        // A frame of another shape (an input swapped mid-recording) cannot go to this encoder.
        guard frame.width == video.format.width, frame.height == video.format.height,
              frame.pixelFormat == video.format.pixelFormat else {
            state.withLock { if $0.videoStart != nil { $0.dropped += 1 } }
            return
        }
        followThermalFloor()
        switch admit(frame) {
        case .ignore:
            return
        case .stop:
            beginStop(reason: RecordingError(.maximumDurationReached,
                "MovieFileOutput: the maximum recorded duration (\(settings.maxDuration!)) was reached"))
        case .accept(let time, let first, let startsSegment, let orientation, let sequence):
            if first { onStart(frame.timestamp) }
            let item = FrameItem(frame: frame, time: time, startsSegment: startsSegment, orientation: orientation, sequence: sequence)
            // A live frame is dropped when the encoder is behind, but never one that starts a
            // segment: the switch is already made at it.
            let offered = video.isLive && startsSegment == nil
            var outcome: FrameOutcome = (offered ? frames.offer(item, limit: Self.liveFrameLimit) : frames.push(item)) ? .queued : .lost
            if outcome == .lost, offered { outcome = overflowed(item) }
            state.withLock { s in
                switch outcome {
                case .queued: s.lastVideoTimestamp = max(s.lastVideoTimestamp, time)
                case .lost: if !s.stopping { s.dropped += 1 }
                case .leftOut: if !s.stopping { s.dropped += 1; s.plannedDropped += 1 }
                }
            }
            if outcome == .queued { videoProgressed.wake() }
            // Behind: the frame was lost, or it is the last the queue has room for.
            if video.isLive, outcome != .queued || frames.waiting >= Self.liveFrameLimit - 1 { fellBehind() }
        }
    }

    /// What becomes of a frame: it goes on the timeline at `time` (starting a new segment, or
    /// the recording), or it is not recorded, or it is past the maximum duration and stops the
    /// recording.
    private enum FrameDecision {
        case accept(time: UInt64, first: Bool, startsSegment: Int?, orientation: VideoOrientation, sequence: Int)
        case ignore, stop
    }

    /// Decides, under the lock, whether `frame` is recorded and where it goes on the recording's
    /// timeline (its capture time with the pauses taken out); the first frame starts the timeline.
    private func admit(_ frame: VideoFrame) -> FrameDecision {
        state.withLock { s in
            guard !s.stopping, s.failed == nil, !s.paused else { return .ignore }
            if s.justResumed {
                // The first frame after a pause follows the last one by one frame: no gap.
                s.justResumed = false
                let aligned = frame.timestamp &- (s.lastVideoTimestamp + frameDurationNanoseconds)
                // Never take back time already removed (a frame arriving early after a very
                // short pause): the offset only grows.
                if frame.timestamp > s.lastVideoTimestamp + frameDurationNanoseconds, aligned > s.pauseOffset {
                    s.pauseOffset = aligned
                }
                s.pauseOffsets.append(s.pauseOffset)  // final for the audio taken since the resume
            }
            let time = frame.timestamp &- s.pauseOffset
            if let start = s.videoStart, let max = settings.maxDuration,
               Self.duration(nanoseconds: time &- start) >= max {
                return .stop
            }
            let first = s.videoStart == nil
            let sequence = s.arrivals
            s.arrivals += 1
            // The frame-rate step in force leaves frames out evenly, never the first.
            if !first, !s.governor.keeps(sequence) {
                s.dropped += 1
                s.plannedDropped += 1
                return .ignore
            }
            if first {
                s.pauseOffsets = [s.pauseOffset]
                s.videoStart = time
                s.lastVideoTimestamp = time  // a stop before this frame is queued still ends after it
                s.segments = [segmentStart(path: settings.path, file: nil, overwrite: settings.overwrite,
                                           orientation: settings.orientation, time: time, in: s)]
                return .accept(time: time, first: true, startsSegment: nil, orientation: s.orientation, sequence: sequence)
            }
            return .accept(time: time, first: false, startsSegment: switchSegment(at: time, in: &s), orientation: s.orientation,
                           sequence: sequence)
        }
    }

    func receive(_ event: AudioSourceEvent) {
        guard audio != nil else { return }
        switch event {
        case .buffer(var buffer):
            guard buffer.frameCount > 0, buffer.bytes.count == buffer.frameCount * audio!.format.bytesPerFrame else { return }
            let live = audio!.isLive
            if !live { waitForVideo(reaching: buffer.timestamp) }
            let taken: (offset: Int64, epoch: Int)? = state.withLock { s in
                guard s.failed == nil, !s.audioEnded, !s.paused else { return nil }
                // A file or synthetic source keeps its own timeline: its first buffer lines up
                // with the first video frame.
                if !live, s.audioOffset == nil, let start = s.videoStart {
                    s.audioOffset = Int64(bitPattern: start &- buffer.timestamp)
                }
                return (s.audioOffset ?? 0, s.pauseEpoch)
            }
            guard let taken else { return }
            // The pause offset is applied on the audio thread, once the first frame after the
            // resume has fixed it (see AudioItem).
            buffer.timestamp = UInt64(bitPattern: Int64(bitPattern: buffer.timestamp) &+ taken.offset)
            guard audioInput.push(AudioItem(buffer: buffer, pauseEpoch: taken.epoch)) else { return }
            let ended: Bool = state.withLock { s in
                guard let end = s.videoEnd, !s.audioEnded, let rate = audio?.format.sampleRate else { return false }
                let bufferEnd = buffer.timestamp + UInt64(buffer.frameCount) * 1_000_000_000 / UInt64(rate) &- s.pauseOffset
                if bufferEnd >= end { s.audioEnded = true }
                return s.audioEnded
            }
            if ended { audioInput.close() }
        case .overrun:
            state.withLock { $0.overruns += 1 }
        case .resumedFromSuspend:
            return
        case .interrupted(let reason):
            state.withLock { $0.interruption = reason }
            beginStop(reason: RecordingError(.deviceLost, "MovieFileOutput: \(reason); the movie was finalized up to that point"))
            endAudio()
        case .ended:
            endAudio()
        }
    }

    /// Holds a file or synthetic audio source (read faster than real time) until the video
    /// has come within half a second of `time`, so audio does not run far ahead of the frames.
    /// Signalled by ``videoProgressed``: a frame, a stop or a failure wakes it.
    private func waitForVideo(reaching time: UInt64) {
        while true {
            let seen = videoProgressed.generation
            let wait: Bool = state.withLock { s in
                guard s.failed == nil, !s.stopping, !s.audioEnded else { return false }
                guard let start = s.videoStart else { return true }
                return time > max(start, s.lastVideoTimestamp) + 500_000_000
            }
            guard wait else { return }
            videoProgressed.wait(after: seen)
        }
    }

    private func endAudio() {
        let first: Bool = state.withLock { s in
            defer { s.audioEnded = true }
            return !s.audioEnded
        }
        if first { audioInput.close() }  // never waits: also called from the writing thread
    }

    /// Lists a rotation change in the segment being recorded; with
    /// ``Segmenting/onRotationChange``, a new segment carrying `orientation` starts at the next
    /// frame.
    func recordRotationChange(_ orientation: VideoOrientation) {
        state.withLock { s in
            s.orientation = orientation
            guard let start = s.videoStart, !s.stopping else { return }
            // A driver may stamp the first frame slightly ahead of now (see V4L2Stream.timestamp(of:)).
            let now = MonotonicClock.now()
            s.rotationChanges.append((s.segments.count - 1, RotationChange(time: Self.duration(nanoseconds: now > start ? now - start : 0),
                                                                          orientation: orientation)))
            if s.pendingSwitch != nil {
                s.pendingSwitch?.orientation = orientation  // the file waiting for its first frame turns too
            } else if let segmenting = settings.segments, segmenting.onRotationChange {
                s.pendingSwitch = automaticSwitch(segmenting, in: s)
            }
        }
    }

    /// Stops taking media until ``resume()``; the movie's timeline skips the pause.
    func pause() {
        state.withLock { s in
            guard !s.paused, !s.stopping else { return }
            s.paused = true
            s.pausedAt = MonotonicClock.now()
        }
    }

    /// Takes media again after ``pause()``.
    func resume() {
        state.withLock { s in
            guard s.paused else { return }
            s.paused = false
            s.pauseOffset += MonotonicClock.now() - s.pausedAt
            // Audio taken from now on belongs to a new pause epoch, unless an earlier resume
            // is still waiting for its first frame.
            if s.videoStart != nil && !s.justResumed { s.pauseEpoch += 1 }
            s.justResumed = s.videoStart != nil
        }
    }

    var isPaused: Bool { state.withLock { $0.paused } }

    /// The microphone clock's latest measured drift, parts per million.
    var audioClockDrift: Double? { state.withLock { $0.audioClockDrift } }

    /// Stops accepting video; the threads drain, flush the encoder and finalize the file.
    func beginStop(reason: RecordingError? = nil) {
        var wasPaused = false
        let first: Bool = state.withLock { s in
            guard !s.stopping else { return false }
            wasPaused = s.paused
            s.stopping = true
            if s.stopReason == nil { s.stopReason = reason }
            if s.videoStart != nil { s.videoEnd = s.lastVideoTimestamp + frameDurationNanoseconds }
            return true
        }
        if first { frames.close() }
        if first && wasPaused { endAudio() }  // no audio is taken while paused
        videoProgressed.wake()
    }

    /// The recording's progress: media written and file size.
    var progress: (duration: Duration, bytes: UInt64, dropped: Int, plannedDropped: Int, divisor: Int) {
        state.withLock { ($0.writtenDuration, $0.bytesWritten, $0.dropped, $0.plannedDropped, $0.governor.divisor) }
    }

    /// Nanoseconds to ticks of `rate`, rounded to the nearest tick.
    static func ticks(_ nanoseconds: Int64, rate: Int64) -> Int64 {
        let (high, low) = nanoseconds.multipliedFullWidth(by: rate)
        let (quotient, remainder) = Int64(1_000_000_000).dividingFullWidth((high, low))
        if remainder >= 500_000_000 { return quotient + 1 }
        if remainder < -500_000_000 { return quotient - 1 }
        return quotient
    }

    static func duration(nanoseconds: UInt64) -> Duration {
        .nanoseconds(Int64(clamping: nanoseconds))
    }
}
