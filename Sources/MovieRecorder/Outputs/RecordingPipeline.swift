import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// One recording in progress: the file, the encoder, the writer and the two threads that
/// connect them.
///
/// ```
/// capture thread ──offer/push──▶ frames (bounded) ──▶ encoding thread ──push──▶ ┐
/// audio capture thread ──push──▶ audio (bounded) ──▶ audio thread ──────push──▶ writing queue (bounded) ──▶ writing thread ──▶ file
/// ```
///
/// The audio thread places each buffer on the audio track's timeline
/// (``AudioTrackTimeline``) and, for AAC, encodes it; so neither the capture thread nor the
/// writing thread ever waits for the AAC encoder.
///
/// Live frames are offered: when the encoder is behind and the frame queue is full, the frame
/// is dropped and counted, so capture never stalls and memory never grows. Frames from files
/// wait instead. Encoded samples and audio wait for room in the writing queue (back-pressure):
/// a stalled disk slows capture into counted drops and ALSA overruns rather than unbounded
/// memory. The writing thread alone touches the `MovieWriter`.
final class RecordingPipeline: Sendable {
    let settings: Settings
    private let video: (format: VideoFormat, isLive: Bool, name: String)
    let audio: (format: PCMFormat, isLive: Bool, name: String)?
    private let frameDurationNanoseconds: UInt64
    private let timescale: UInt32
    let state = LockedValue(State())
    /// Frames for the encoder, each with its capture time on the recording's timeline (pauses
    /// taken out).
    private let frames: BoundedQueue<(frame: VideoFrame, time: UInt64)>
    let writing = BoundedQueue<WriterItem>(capacity: 96)
    /// Audio buffers (timestamps on the recording's timeline) for the audio thread.
    let audioInput = BoundedQueue<AudioItem>(capacity: 64)
    /// The AAC encoder, which only the audio thread uses; nil for LPCM or without audio.
    let aacEncoder: AACEncoder?
    /// Woken when a frame is queued or the recording stops or fails: what an audio source held
    /// back by ``waitForVideo(reaching:)`` waits for.
    private let videoProgressed = WakeSignal()
    private let file: RandomAccessFile
    private let encoder: H264Encoder
    private let writer: UnsafeTransfer<MovieWriter>
    private let videoTrack: TrackID
    let audioTrack: TrackID?
    private let onStart: @Sendable (UInt64) -> Void
    private let onFinish: @Sendable (RecordingResult) -> Void

    /// Opens the encoder and creates the file; nothing runs until ``start()``.
    /// - Throws: ``RecordingError`` naming what failed; no file is left behind.
    init(settings: Settings, sources: SourceDescription, onStart: @escaping @Sendable (UInt64) -> Void,
         onFinish: @escaping @Sendable (RecordingResult) -> Void) throws {
        guard let video = sources.video else {
            throw RecordingError(.notConnected, "MovieFileOutput: the session has no video input to record")
        }
        self.settings = settings
        self.video = video
        self.audio = sources.audio
        self.onStart = onStart
        self.onFinish = onFinish
        let rate = video.format.frameRate
        frameDurationNanoseconds = 1_000_000_000 * UInt64(rate.seconds) / UInt64(rate.frames)
        timescale = rate.timescale
        frames = BoundedQueue(capacity: video.isLive ? 4 : 8)
        do {
            encoder = try H264Encoder(format: video.format, timescale: timescale, settings: settings.encoder)
        } catch let error as EncoderError {
            throw RecordingError(.encoderFailed, "MovieFileOutput: starting the encoder: \(error.message)", underlyingError: error)
        }
        do {
            aacEncoder = try Self.makeAudioEncoder(settings.audio, for: sources.audio?.format)
        } catch {
            encoder.close()
            throw RecordingError(.encoderFailed, "MovieFileOutput: starting the audio encoder: \(error.message)", underlyingError: error)
        }
        do {
            file = try RandomAccessFile(path: settings.path, mode: settings.overwrite ? .createOrTruncate : .createNew)
        } catch let error as FileError {
            encoder.close()
            aacEncoder?.close()
            throw RecordingError(error.code == .alreadyExists ? .fileExists : .fileError,
                                 "MovieFileOutput: creating the movie file: \(error)", underlyingError: error)
        }
        let writer = MovieWriter(sink: file, configuration: Self.writerConfiguration(settings))
        do {
            videoTrack = try writer.addVideoTrack(VideoTrackFormat(
                h264: encoder.configuration, timescale: timescale, orientation: settings.orientation,
                nominalFrameDuration: rate.frameDuration))
            let aacFormat = aacEncoder?.format
            audioTrack = try sources.audio.map { audio in
                try writer.addAudioTrack(aacFormat.map { AudioTrackFormat(aac: $0) } ?? AudioTrackFormat(pcm: audio.format))
            }
        } catch {
            encoder.close()
            aacEncoder?.close()
            try? file.close()
            try? RandomAccessFile.remove(settings.path)
            throw RecordingError(.fileError, "MovieFileOutput: describing the tracks: \(error)", underlyingError: error)
        }
        self.writer = UnsafeTransfer(writer)
    }

    /// The writer's fragmenting, durability and metadata, with the creation date and the
    /// software's name unless the settings' metadata has them.
    private static func writerConfiguration(_ settings: Settings) -> MovieWriter.Configuration {
        var items = settings.metadata
        if !items.contains(where: { $0.key == MetadataItem.creationDate(settings.metadataCreationTime).key }) {
            items.append(.creationDate(settings.metadataCreationTime))
        }
        if !items.contains(where: { $0.key == MetadataItem.software("").key }) { items.append(.software("MovieRecorder")) }
        var configuration = MovieWriter.Configuration(creationTime: settings.metadataCreationTime, metadata: items)
        configuration.fragmentInterval = settings.fragmentInterval
        configuration.durability = settings.durability
        configuration.checksumsFragments = true  // repair keeps only media that reached the disk intact
        return configuration
    }

    /// Starts the encoding, audio and writing threads.
    func start() {
        let encoding = DedicatedThread(name: "movrec-encode") { [self] in encodeLoop() }
        let audioThread = audio == nil ? nil : DedicatedThread(name: "movrec-audio") { [self] in audioLoop() }
        DedicatedThread(name: "movrec-write") { [self] in
            writeLoop()
            encoding.join()
            audioThread?.join()
            finish()
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
        switch admit(frame) {
        case .ignore:
            return
        case .stop:
            beginStop(reason: RecordingError(.maximumDurationReached,
                "MovieFileOutput: the maximum recorded duration (\(settings.maxDuration!)) was reached"))
        case .accept(let time, let first):
            if first { onStart(frame.timestamp) }
            let accepted = video.isLive ? frames.offer((frame, time)) : frames.push((frame, time))
            state.withLock { s in
                if accepted {
                    s.lastVideoTimestamp = max(s.lastVideoTimestamp, time)
                } else if !s.stopping {
                    s.dropped += 1
                }
            }
            if accepted { videoProgressed.wake() }
        }
    }

    /// What becomes of a frame: it goes on the timeline at `time`, or it is not recorded, or it
    /// is past the maximum duration and stops the recording.
    private enum FrameDecision { case accept(time: UInt64, first: Bool), ignore, stop }

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
            if first {
                s.pauseOffsets = [s.pauseOffset]
                s.videoStart = time
                s.lastVideoTimestamp = time  // a stop before this frame is queued still ends after it
            }
            return .accept(time: time, first: first)
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

    func recordRotationChange(_ orientation: VideoOrientation) {
        state.withLock { s in
            guard let start = s.videoStart, !s.stopping else { return }
            // A driver may stamp the first frame slightly ahead of now (see V4L2Stream.timestamp(of:)).
            let now = MonotonicClock.now()
            s.rotationChanges.append(RotationChange(time: Self.duration(nanoseconds: now > start ? now - start : 0),
                                                    orientation: orientation))
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
    var progress: (duration: Duration, bytes: UInt64, dropped: Int) {
        state.withLock { ($0.writtenDuration, $0.bytesWritten, $0.dropped) }
    }

    // MARK: Encoding thread

    private func encodeLoop() {
        var lastPresentation: Int64 = -1
        do {
            while let (frame, time) = frames.pop() {
                let start = state.withLock { $0.videoStart } ?? time
                var presentation = Self.ticks(Int64(bitPattern: time &- start), rate: Int64(timescale))
                if presentation <= lastPresentation { presentation = lastPresentation + 1 }
                lastPresentation = presentation
                if let sample = try encoder.encode(frame, presentationTime: presentation) {
                    guard writing.push(.video(sample)) else { break }
                }
            }
            for sample in try encoder.flush() { guard writing.push(.video(sample)) else { break } }
        } catch {
            fail(RecordingError(.encoderFailed, "MovieFileOutput: encoding: \(error)", underlyingError: error))
            while frames.pop() != nil {}
        }
        encoder.close()
        writing.push(.videoEnded)
    }

    // MARK: Writing thread

    var audioRate: Int64 { Int64(audio?.format.sampleRate ?? 1) }

    /// What the writing thread keeps from one item to the next.
    private struct WriteLoopState {
        var videoEnded = false
        var audioEnded: Bool
        /// Once the video has ended, when the writing gives up waiting for the audio to end.
        var videoEndDeadline: UInt64?
        var firstDecodeTime: Int64?
        /// Where the audio written so far ends on the movie timeline, in ticks of the sample rate.
        var audioEnd: Int64?
    }

    /// Writes what comes off the writing queue until both video and audio have ended, then
    /// finishes the movie; a failed write fails the recording.
    private func writeLoop() {
        var loop = WriteLoopState(audioEnded: audio == nil)
        do {
            while !(loop.videoEnded && loop.audioEnded), let item = nextWriterItem(until: loop.videoEndDeadline) {
                try write(item, &loop)
                publishProgress()
            }
            try finishMovie(firstDecodeTime: loop.firstDecodeTime, audioEnd: loop.audioEnd)
        } catch {
            fail(RecordingError(.fileError, "MovieFileOutput: writing \(settings.path): \(error)", underlyingError: error))
        }
        writing.close()
        frames.close()
        audioInput.close()
        videoProgressed.wake()
    }

    /// The next item off the writing queue; nil once it is closed, or when the audio has not
    /// ended by `deadline`.
    private func nextWriterItem(until deadline: UInt64?) -> WriterItem? {
        guard let deadline else { return writing.pop() }
        guard case .some(let next) = writing.pop(until: deadline) else { return nil }  // audio never caught up
        return next
    }

    /// Appends one item to the movie.
    private func write(_ item: WriterItem, _ loop: inout WriteLoopState) throws {
        switch item {
        case .video(let sample):
            if loop.firstDecodeTime == nil { loop.firstDecodeTime = sample.decodeTime }
            try writer.value.appendVideoSample(sample.data, to: videoTrack, decodeTime: sample.decodeTime,
                                               presentationTime: sample.presentationTime, isSync: sample.isKeyframe)
        case .audioFrames(let buffer, let placement):
            try writeAudio(buffer, placement)
            if !placement.frames.isEmpty { loop.audioEnd = placement.startTime + Int64(placement.frames.count) }
        case .audioPackets(let packets, let startTime, let end):
            for packet in packets { try writer.value.appendAudioPacket(packet, to: audioTrack!, startTime: startTime) }
            loop.audioEnd = end
        case .videoEnded:
            loop.videoEnded = true
            loop.videoEndDeadline = MonotonicClock.now() + 2_000_000_000  // the audio has two seconds to catch up
        case .audioEnded:
            loop.audioEnded = true
        }
    }

    /// Appends PCM `buffer` where the timeline put it, after the silence that fills an overrun.
    private func writeAudio(_ buffer: AudioBuffer, _ placement: AudioTrackTimeline.Placement) throws {
        let bytesPerFrame = audio?.format.bytesPerFrame ?? 1
        if placement.silenceFrames > 0 {
            let silence = [UInt8](repeating: 0, count: placement.silenceFrames * bytesPerFrame)
            try writer.value.appendAudioFrames(silence, to: audioTrack!)
        }
        guard !placement.frames.isEmpty else { return }
        try buffer.bytes.withUnsafeBytes { raw in
            let bytes = (placement.frames.lowerBound * bytesPerFrame)..<(placement.frames.upperBound * bytesPerFrame)
            try writer.value.appendAudioFrames(UnsafeRawBufferPointer(rebasing: raw[bytes]), to: audioTrack!,
                                               startTime: placement.startTime)
        }
    }

    /// Records the media written and the file size for ``progress``, then checks the limits.
    private func publishProgress() {
        let writer = self.writer.value
        let duration = writer.recordedDuration
        let bytes = writer.bytesWritten
        state.withLock {
            $0.writtenDuration = Self.duration(nanoseconds: duration * 1_000_000_000 / UInt64(writer.configuration.movieTimescale))
            $0.bytesWritten = bytes
        }
        checkLimits(bytesWritten: bytes)
    }

    /// Ends both tracks where the video ends (the audio sooner when it ended sooner), finishes
    /// the movie and flushes the file.
    private func finishMovie(firstDecodeTime: Int64?, audioEnd: Int64?) throws {
        let span: Int64 = state.withLock { s in
            guard let start = s.videoStart, let end = s.videoEnd else { return 0 }
            return Int64(end - start)
        }
        var endTimes = [videoTrack: (firstDecodeTime ?? 0) + Self.ticks(span, rate: Int64(timescale))]
        // Audio that ran ahead of the last frame (a file source is read faster than video is
        // encoded) is cut where the video ends.
        if let audioTrack { endTimes[audioTrack] = min(Self.ticks(span, rate: audioRate), audioEnd ?? .max) }
        _ = try writer.value.finish(endTimes: endTimes)
        try file.synchronize()
    }

    private let lastDiskCheck = LockedValue<UInt64>(0)

    /// Stops the recording at ``MovieFileOutput/maxRecordedFileSize`` or when the disk's free
    /// space falls below ``MovieFileOutput/minFreeDiskSpaceLimit`` (checked twice a second).
    private func checkLimits(bytesWritten: UInt64) {
        if let limit = settings.maxFileSize, bytesWritten >= limit {
            beginStop(reason: RecordingError(.maximumFileSizeReached,
                "MovieFileOutput: the maximum file size (\(limit) bytes) was reached"))
        }
        let now = MonotonicClock.now()
        let due = lastDiskCheck.withLock { last in
            guard now - last >= 500_000_000 else { return false }
            last = now
            return true
        }
        guard due else { return }
        if !file.isLinked {
            fail(RecordingError(.fileError, "MovieFileOutput: \(settings.path) was deleted, or its directory removed, while recording; the recording was stopped"))
            return
        }
        if let minimum = settings.minFreeDiskSpace, let free = FileSystemSpace.available(at: settings.path), free < minimum {
            beginStop(reason: RecordingError(.minimumFreeDiskSpaceReached,
                "MovieFileOutput: only \(free) bytes are free on the disk, below the limit of \(minimum); the recording was stopped and finalized"))
        }
    }

    func fail(_ error: RecordingError) {
        state.withLock { s in
            if s.failed == nil { s.failed = error }
            s.stopping = true
        }
        writing.close()
        frames.close()
        audioInput.close()
        videoProgressed.wake()
    }

    private func finish() {
        let (info, finalSize, noFrames) = closeAndReadBack()
        let result: RecordingResult = state.withLock { s in
            RecordingResult(
                path: settings.path,
                duration: info.map { Self.duration(nanoseconds: $0.movieHeader.duration * 1_000_000_000 / UInt64(max(1, $0.movieHeader.timescale))) } ?? s.writtenDuration,
                fileSize: info?.tree.fileSize ?? finalSize,
                frameCount: Int(info?.videoTrack?.sampleCount ?? 0),
                droppedFrameCount: s.dropped,
                corruptedFrameCount: s.corrupted,
                audioOverrunCount: s.overruns,
                orientation: settings.orientation,
                rotationChanges: s.rotationChanges,
                isPlayable: info != nil && (!noFrames),  // finished, repaired after a failure, or fragmented
                error: s.failed ?? s.stopReason,
                interruption: s.interruption)
        }
        onFinish(result)
    }

    /// Closes the file and reads back the movie it holds; a movie without a single frame is
    /// removed (`info` nil, `noFrames` true).
    private func closeAndReadBack() -> (info: MovieInfo?, finalSize: UInt64, noFrames: Bool) {
        let failed = state.withLock { $0.failed != nil }
        if failed, settings.fragmentInterval != nil {
            // A write failed (a full disk, an I/O error): everything up to the last whole
            // fragment is on disk. Finish it as an ordinary movie if there is room for the
            // movie atom (cutting the partial fragment frees some); otherwise it stays a
            // fragmented movie, which players open as it is.
            _ = try? MovieRepair.repair(file)
        }
        let finalSize = file.size
        try? file.close()
        var info = try? MovieInfo(source: RandomAccessFile(path: settings.path, mode: .read))
        // A movie left fragmented (no room to finish it) plays through its fragments.
        let playableFragments = info?.isFragmented == true && info!.tree.atoms.contains { $0.type == "moof" }
        let noFrames = (info?.videoTrack?.sampleCount ?? 0) == 0 && !playableFragments
        if noFrames {
            // A movie without a single frame is not a recording: leave nothing that looks like one.
            try? RandomAccessFile.remove(settings.path)
            info = nil
            state.withLock { s in
                if s.failed == nil {
                    s.failed = RecordingError(.notConnected, "MovieFileOutput: no video frame arrived before the recording stopped, so no movie was kept")
                }
            }
        }
        return (info, finalSize, noFrames)
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
