import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An output that records video and audio to a QuickTime movie, as
/// `AVCaptureMovieFileOutput` does: H.264 through libx264, AAC audio (or LPCM, see
/// ``audioSettings``), the rotation in force when recording starts stored in the video track's
/// matrix.
///
/// Add it to a ``CaptureSession``, start the session, then ``startRecording(to:overwrite:)`` and
/// ``stopRecording()``. Rotation changes during a recording do not change that file; they are
/// listed in its ``RecordingResult``.
///
/// A recording can go on into new files without losing a frame or an audio sample:
/// ``startRecording(to:overwrite:)`` while recording switches to the new file at the next
/// frame, as on macOS; ``startRecording(toSegments:overwrite:)`` switches by itself every
/// ``segmentDuration`` or ``segmentFileSize`` (and, with ``startsNewSegmentOnRotationChange``,
/// when the device turns), keeping at most ``maximumSegmentCount`` files or
/// ``maximumTotalSize`` bytes. See <doc:LongRecordings>.
public final class MovieFileOutput: OutputService, MediaReceiver {
    /// Events of a recording, like `AVCaptureFileOutputRecordingDelegate`'s callbacks.
    public enum Event: Sendable {
        /// The first frame was accepted; `time` is its capture time on `MonotonicClock`.
        case didStartRecording(path: String, time: UInt64)
        /// With `VideoEncoderSettings.Encoder.automatic`: the encoder the recording took, a
        /// hardware encoder or software, and why. Sent as the recording starts, before its first
        /// frame.
        case didChooseVideoEncoder(VideoEncoderChoice)
        /// The recording went on into a new file at `path` (a switch or an automatic segment).
        case didStartSegment(path: String)
        /// A file of the recording was finished because the recording went on into the next
        /// one; the last file ends with ``didFinishRecording(_:)``.
        case didFinishSegment(RecordingResult)
        /// Retention deleted an old file of the recording (``maximumSegmentCount``,
        /// ``maximumTotalSize``).
        case didDeleteSegment(path: String)
        /// The microphone's clock was measured against the system clock: it runs
        /// `partsPerMillion` fast (positive) or slow. Sent once ten seconds of audio give an
        /// estimate, then every ten seconds; ``RecordingResult/audioClockDrift`` has the last.
        case didMeasureAudioClockDrift(partsPerMillion: Double)
        /// The recording was paused; media is not recorded until it resumes.
        case didPauseRecording(path: String)
        /// The recording resumed; the movie's timeline continues without a gap.
        case didResumeRecording(path: String)
        /// An event clip began at `path` (``saveEventClip(preRoll:postRoll:)``); a later trigger
        /// during its post-roll extends it rather than beginning another.
        case didStartEventClip(path: String)
        /// An event clip was finished (or could not be written: ``RecordingResult/error`` says
        /// why, and ``RecordingResult/isPlayable`` whether what it holds plays).
        case didFinishEventClip(RecordingResult)
        /// The recording ended: asked to, at a limit, at the end of a file source, on a lost
        /// device or on an error. ``RecordingResult/isPlayable`` says whether the movie is
        /// finalized.
        case didFinishRecording(RecordingResult)
    }

    struct State {
        var angle: Double = 0
        var mirrored = false
        var encoderSettings = VideoEncoderSettings()
        /// Tests only: an encoder standing in for hardware, used instead of the one the settings name.
        var standInEncoder: VideoEncoderMaker?
        var audioSettings = AudioEncoderSettings.aac
        var audioClockCorrection = true
        var degradesUnderPressure = false
        var maxRecordedDuration: Duration?
        var metadata: [MetadataItem] = []
        var maxRecordedFileSize: UInt64?
        var minFreeDiskSpaceLimit: UInt64?
        var fragmentInterval: Duration? = .seconds(1)
        var segmentDuration: Duration?
        var segmentFileSize: UInt64?
        var maximumSegmentCount: Int?
        var maximumTotalSize: UInt64?
        var startsNewSegmentOnRotationChange = false
        var durability = MovieWriter.Durability.none
        var locationSource: (any LocationSource)?
        var timedMetadataKeys: [TimedMetadataKey] = []
        var eventClipSettings: EventClipSettings?
        var fileObserver: (any RecordingFileObserver)?
        var sources: SourceDescription?
        var pipeline: RecordingPipeline?
        var waiters: [CheckedContinuation<RecordingResult, Never>] = []
        var lastResult: RecordingResult?
    }

    let state = LockedValue(State())
    private let eventContinuation: AsyncStream<Event>.Continuation
    /// The recording's encoded pictures for an ``RTSPServer``.
    let encodedTap = EncodedStreamTap()
    /// The recording events, newest kept when nobody reads (up to 64: a segmented recording
    /// sends two or three per file). Read them from a task started before the recording.
    public let events: AsyncStream<Event>

    /// Creates an output with the given encoder settings.
    public init(encoderSettings: VideoEncoderSettings = VideoEncoderSettings()) {
        (events, eventContinuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        state.withLock { $0.encoderSettings = encoderSettings }
    }

    deinit { eventContinuation.finish() }

    /// What hears of each file the next recording finishes, and may hold it back from
    /// retention until it is uploaded: an `UploadQueue` (MovieNetwork). Nil by default.
    public var fileObserver: (any RecordingFileObserver)? {
        get { state.withLock { $0.fileObserver } }
        set { state.withLock { $0.fileObserver = newValue } }
    }

    /// How the next recording stores its audio: AAC-LC at 64 kbit/s per channel by default,
    /// like `AVCaptureMovieFileOutput`; `AudioEncoderSettings.lpcm` for uncompressed PCM.
    public var audioSettings: AudioEncoderSettings {
        get { state.withLock { $0.audioSettings } }
        set { state.withLock { $0.audioSettings = newValue } }
    }

    /// A Boolean value that indicates whether the next recording resamples audio from a device
    /// with a clock of its own to follow the system clock that stamps the video; true by
    /// default.
    ///
    /// A sound card's crystal is never exactly the system clock: at 50 ppm the sound is 180 ms
    /// off the picture after an hour. With the correction, the recording measures the
    /// device's rate against the system clock (a line fitted to a minute of buffers' frame
    /// counts and capture times) and resamples its audio with libsamplerate at the measured
    /// ratio, steered so each sample lands at its capture time. Files and synthetic sources,
    /// which share the media clock, are never resampled; the drift is measured and reported
    /// either way (``RecordingResult/audioClockDrift``). Only signed 16-bit little-endian audio
    /// (what ALSA microphones deliver here) is resampled; other formats are measured only.
    /// See <doc:Recording>.
    public var audioClockCorrection: Bool {
        get { state.withLock { $0.audioClockCorrection } }
        set { state.withLock { $0.audioClockCorrection = newValue } }
    }

    /// The latest measurement of the recording's microphone clock against the system clock,
    /// in parts per million fast (positive) or slow; `nil` when not recording audio from a
    /// device with a clock of its own, or before ten seconds of audio have been measured.
    public var audioClockDrift: Double? { state.withLock { $0.pipeline }?.audioClockDrift }

    /// The codecs this machine can record, H.264 first: those whose encoder library (libx264,
    /// libx265) opens. Like `AVCaptureMovieFileOutput.availableVideoCodecTypes`; choose one with
    /// `VideoEncoderSettings.codec` in ``encoderSettings``.
    public var availableVideoCodecTypes: [VideoCodecType] { MovieEncoding.availableVideoCodecTypes() }

    /// How the next recording's video is encoded: H.264 by default, or HEVC with
    /// `VideoEncoderSettings.codec` (see <doc:Recording#Choose-a-codec>).
    public var encoderSettings: VideoEncoderSettings {
        get { state.withLock { $0.encoderSettings } }
        set { state.withLock { $0.encoderSettings = newValue } }
    }

    /// Tests only: the next recordings encode with what `make` opens, an encoder standing in
    /// for hardware this machine does not have, instead of the one the settings name.
    package func useStandInVideoEncoder(_ make: @escaping VideoEncoderMaker) {
        state.withLock { $0.standInEncoder = make }
    }

    /// The longest a recording may run; at the limit it stops with
    /// ``RecordingError/Code/maximumDurationReached`` and a finalized movie. `nil` for no limit.
    public var maxRecordedDuration: Duration? {
        get { state.withLock { $0.maxRecordedDuration } }
        set { state.withLock { $0.maxRecordedDuration = newValue } }
    }

    /// Metadata written into each movie (`AVCaptureFileOutput.metadata`): location, make, model,
    /// custom keys… as QuickTime `mdta` items that exiftool and ffprobe show. The creation date
    /// and the software are added unless given here.
    public var metadata: [MetadataItem] {
        get { state.withLock { $0.metadata } }
        set { state.withLock { $0.metadata = newValue } }
    }

    /// The largest a movie may grow, in bytes; at the limit the recording stops with
    /// ``RecordingError/Code/maximumFileSizeReached`` and a finalized movie (it may pass the
    /// limit by up to one fragment). `nil` for no limit.
    ///
    /// In a segmented recording it applies to each file; ``maxRecordedDuration`` applies to the
    /// whole recording.
    public var maxRecordedFileSize: UInt64? {
        get { state.withLock { $0.maxRecordedFileSize } }
        set { state.withLock { $0.maxRecordedFileSize = newValue } }
    }

    /// The free space, in bytes, the disk must keep; below it the recording stops with
    /// ``RecordingError/Code/minimumFreeDiskSpaceReached`` and a finalized movie. `nil` for no limit.
    public var minFreeDiskSpaceLimit: UInt64? {
        get { state.withLock { $0.minFreeDiskSpaceLimit } }
        set { state.withLock { $0.minFreeDiskSpaceLimit = newValue } }
    }

    /// How often a movie fragment is written while recording (`AVCaptureMovieFileOutput`'s
    /// movieFragmentInterval): one second by default, so a crash, a kill or a power cut loses
    /// at most about that much; `nil` writes the movie atom only at the end. A recording that
    /// stops normally is an ordinary movie either way.
    public var movieFragmentInterval: Duration? {
        get { state.withLock { $0.fragmentInterval } }
        set { state.withLock { $0.fragmentInterval = newValue } }
    }

    /// How long each file of a segmented recording lasts (the last may be shorter); `nil` (the
    /// default) for no time limit. A segment switches at the first frame at or after it, an
    /// IDR the encoder is asked for, so at a constant frame rate each file lasts exactly this
    /// long. Applies to recordings started with ``startRecording(toSegments:overwrite:)``.
    public var segmentDuration: Duration? {
        get { state.withLock { $0.segmentDuration } }
        set { state.withLock { $0.segmentDuration = newValue } }
    }

    /// The size a segmented recording keeps each file near: it switches to its next file at the
    /// frame that brings the file's predicted size nearest it, over or under — the bytes encoded
    /// for it, what the frames still in the encoder will add, its audio and its tables — not the
    /// bytes on the disk, which lag by the fragment interval; so files stay within about 10% of
    /// it on an idle or busy machine, LPCM files of half a second too. Only a first file the
    /// video fills almost alone within the encoder's delay (about 17 frames) can pass it by more.
    /// `nil` (the default) for no size limit.
    public var segmentFileSize: UInt64? {
        get { state.withLock { $0.segmentFileSize } }
        set { state.withLock { $0.segmentFileSize = newValue } }
    }

    /// The most files of a segmented recording kept on the disk: when a new segment starts and
    /// there are more, the oldest finished ones are deleted (never the one being written, never
    /// a file this recording did not create). `nil` (the default) keeps them all.
    public var maximumSegmentCount: Int? {
        get { state.withLock { $0.maximumSegmentCount } }
        set { state.withLock { $0.maximumSegmentCount = newValue } }
    }

    /// The most bytes a segmented recording's files take together, the one being written
    /// included: the oldest finished files are deleted to stay under it. `nil` (the default)
    /// for no limit. With ``minFreeDiskSpaceLimit`` this records for weeks on a small disk.
    public var maximumTotalSize: UInt64? {
        get { state.withLock { $0.maximumTotalSize } }
        set { state.withLock { $0.maximumTotalSize = newValue } }
    }

    /// A Boolean value that indicates whether a change of the capture angle while a segmented
    /// recording runs starts a new segment at the next frame, carrying the new angle in its
    /// matrix, so every part of a long recording plays upright. Off by default: the file keeps
    /// the orientation it started with and lists the change, as on Apple platforms.
    public var startsNewSegmentOnRotationChange: Bool {
        get { state.withLock { $0.startsNewSegmentOnRotationChange } }
        set { state.withLock { $0.startsNewSegmentOnRotationChange = newValue } }
    }

    /// When recorded data is forced to the disk: `.none` (the default) or after every fragment.
    public var durability: MovieWriter.Durability {
        get { state.withLock { $0.durability } }
        set { state.withLock { $0.durability = newValue } }
    }

    // MARK: OutputService

    /// The clockwise rotation, in degrees, that the next recording stores in its track matrix.
    public var videoRotationAngle: Double { state.withLock { $0.angle } }
    /// A Boolean value that indicates whether the next recording's matrix mirrors the picture.
    public var isVideoMirrored: Bool { state.withLock { $0.mirrored } }

    /// Sets the rotation for the next recording; a recording in progress keeps its orientation
    /// and lists the change in ``RecordingResult/rotationChanges`` (a segmented one with
    /// ``startsNewSegmentOnRotationChange`` goes on into a new file carrying it).
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    public func setVideoRotationAngle(_ angle: Double) throws(OrientationError) {
        let orientation = try VideoOrientation(rotationAngle: angle, isMirrored: isVideoMirrored)
        let pipeline: RecordingPipeline? = state.withLock { s in
            guard s.angle != angle else { return nil }  // the same angle again is no change
            s.angle = angle
            return s.pipeline
        }
        pipeline?.recordRotationChange(orientation)
    }

    /// Sets whether the next recording is mirrored; a recording in progress keeps its
    /// orientation and lists the change in ``RecordingResult/rotationChanges``.
    public func setVideoMirrored(_ mirrored: Bool) {
        let (pipeline, angle) = state.withLock { s in
            s.mirrored = mirrored
            return (s.pipeline, s.angle)
        }
        if let orientation = try? VideoOrientation(rotationAngle: angle, isMirrored: mirrored) {
            pipeline?.recordRotationChange(orientation)
        }
    }

    // MARK: Recording

    /// A Boolean value that indicates whether a recording is in progress.
    public var isRecording: Bool { state.withLock { $0.pipeline != nil } }

    /// The duration of media recorded so far in the recording in progress
    /// (`AVCaptureFileOutput`'s recordedDuration); zero when not recording.
    public var recordedDuration: Duration { state.withLock { $0.pipeline?.progress.duration ?? .zero } }
    /// The number of bytes written so far to the file of the recording in progress
    /// (`AVCaptureFileOutput`'s recordedFileSize); 0 when not recording.
    public var recordedFileSize: UInt64 { state.withLock { $0.pipeline?.progress.bytes ?? 0 } }
    /// Frames dropped so far in this recording.
    public var droppedFrameCount: Int { state.withLock { $0.pipeline?.progress.dropped ?? 0 } }
    /// Of ``droppedFrameCount``, the frames left out on purpose by a frame-rate step
    /// (``degradesUnderPressure``).
    public var plannedDroppedFrameCount: Int { state.withLock { $0.pipeline?.progress.plannedDropped ?? 0 } }
    /// The recording keeps one frame in this many: 1 normally, 2 or 3 while a frame-rate step
    /// is in force (``degradesUnderPressure``); 1 when not recording.
    public var frameRateDivisor: Int { state.withLock { $0.pipeline?.progress.divisor ?? 1 } }

    /// A Boolean value that indicates whether a recording gives way under pressure, as AVCam
    /// does by hand; off by default. Read when a recording starts.
    ///
    /// When the recording falls behind (frames wait for the encoder or are lost) or a thermal
    /// zone nears its trip point, the session's live views give way first (half their frame
    /// rate, then no pictures), then the recording keeps every second frame, then every third,
    /// evenly and with true timestamps, instead of losing frames at random. At a critical
    /// thermal level the movie is finished (``RecordingError/Code/systemPressureShutdown``). Each step
    /// is undone once the encoder has room to spare again; ``CaptureSession/degradationSteps()``
    /// lists them and ``RecordingResult/plannedDroppedFrameCount`` counts the frames left out.
    /// A step is taken only for the recording's own lag or for heat, never because the CPU is
    /// busy while the recording keeps up. See <doc:Recording#Under-pressure>.
    public var degradesUnderPressure: Bool {
        get { state.withLock { $0.degradesUnderPressure } }
        set { state.withLock { $0.degradesUnderPressure = newValue } }
    }

    /// Starts recording to a new movie at `path`; while recording, switches to it.
    ///
    /// Returns once the encoder is open and the file created; recording begins with the next
    /// frame. The orientation is the output's current rotation angle and mirroring. While a
    /// recording is in progress, the current file is finished and the recording goes on into
    /// this one at the next frame (an IDR), without losing or repeating a frame or an audio
    /// sample, as `AVCaptureFileOutput.startRecording(to:recordingDelegate:)` does on macOS: the
    /// events say ``Event/didFinishSegment(_:)`` for the old file and
    /// ``Event/didStartSegment(path:)`` for the new one.
    /// - Parameters:
    ///   - path: where to write; its directory must exist.
    ///   - overwrite: replace an existing file; without it an existing file is an error.
    /// - Throws: ``RecordingError``: not connected to a running session with video, a switch
    ///   already waiting, the file exists or cannot be created, or an encoder refused its
    ///   settings (or its library, libx264 or libavcodec, is not installed).
    public func startRecording(to path: String, overwrite: Bool = false) async throws {
        if let pipeline = state.withLock({ $0.pipeline }) {
            try await switchRecording(of: pipeline, to: path, overwrite: overwrite)
            return
        }
        try await startPipeline(path: path, overwrite: overwrite, segmenting: nil)
    }

    /// Starts a segmented recording: files named by `names` (the first created now), each
    /// switched to at the next frame when ``segmentDuration`` or ``segmentFileSize`` is
    /// reached (or the device turns, with ``startsNewSegmentOnRotationChange``), and the oldest
    /// deleted beyond ``maximumSegmentCount`` or ``maximumTotalSize``. Every segment starts at
    /// media time 0 with an IDR, carries the orientation, the metadata and its own creation
    /// date, and is a complete movie on its own.
    /// - Throws: as ``startRecording(to:overwrite:)``; ``RecordingError/Code/alreadyRecording``
    ///   while recording, and ``RecordingError/Code/invalidSettings`` for a segment limit that
    ///   is not positive.
    public func startRecording(toSegments names: SegmentFileNames, overwrite: Bool = false) async throws {
        guard state.withLock({ $0.pipeline == nil }) else {
            throw RecordingError(.alreadyRecording, "MovieFileOutput: a recording is already in progress; stop it first, or switch files with startRecording(to:)")
        }
        let segmenting = try state.withLock { s throws(RecordingError) in try Self.segmenting(names, s) }
        try await startPipeline(path: names.path(index: 0, unixSeconds: Int64(SystemClock.unixSeconds())), overwrite: overwrite,
                                segmenting: segmenting)
    }

    /// The segment settings, checked.
    private static func segmenting(_ names: SegmentFileNames, _ s: State) throws(RecordingError) -> RecordingPipeline.Segmenting {
        if let duration = s.segmentDuration, duration <= .zero {
            throw RecordingError(.invalidSettings, "MovieFileOutput: segmentDuration \(duration) is not positive")
        }
        if let size = s.segmentFileSize, size == 0 { throw RecordingError(.invalidSettings, "MovieFileOutput: segmentFileSize is 0") }
        if let count = s.maximumSegmentCount, count < 1 {
            throw RecordingError(.invalidSettings, "MovieFileOutput: maximumSegmentCount \(count) keeps no file; use 1 or more")
        }
        return RecordingPipeline.Segmenting(names: names, duration: s.segmentDuration, fileSize: s.segmentFileSize,
                                            maximumCount: s.maximumSegmentCount, maximumTotalSize: s.maximumTotalSize,
                                            onRotationChange: s.startsNewSegmentOnRotationChange)
    }

    /// Opens the encoders and the first file on a thread of their own, installs the pipeline and
    /// starts it.
    private func startPipeline(path: String, overwrite: Bool, segmenting: RecordingPipeline.Segmenting?) async throws {
        let (sources, settings) = state.withLock { s in
            (s.sources, RecordingPipeline.Settings(
                path: path, overwrite: overwrite, encoder: s.encoderSettings, audio: s.audioSettings,
                audioClockCorrection: s.audioClockCorrection,
                orientation: (try? VideoOrientation(rotationAngle: s.angle, isMirrored: s.mirrored)) ?? .up,
                maxDuration: s.maxRecordedDuration, maxFileSize: s.maxRecordedFileSize,
                minFreeDiskSpace: s.minFreeDiskSpaceLimit, fragmentInterval: s.fragmentInterval, durability: s.durability,
                metadataCreationTime: QuickTimeTimestamp(unixSeconds: Int64(SystemClock.unixSeconds())),
                metadata: s.metadata, segments: segmenting, recordsLocation: s.locationSource != nil,
                timedMetadataKeys: s.timedMetadataKeys, eventClips: s.eventClipSettings,
                degradesUnderPressure: s.degradesUnderPressure, standInEncoder: s.standInEncoder))
        }
        if let events = settings.eventClips { try Self.check(events) }
        guard let sources, sources.video != nil else {
            throw RecordingError(.notConnected, "MovieFileOutput: not connected to a running capture session with a video input; add the output and start the session first")
        }
        // Opening the encoder and creating the file block: do it on a thread of its own.
        let events = eventContinuation
        let tap = encodedTap
        let observer = state.withLock { $0.fileObserver }
        let pipeline = try await runOnDedicatedThread(name: "movrec-open") {
            try RecordingPipeline(settings: settings, sources: sources,
                                  onStart: { time in events.yield(.didStartRecording(path: path, time: time)) },
                                  onFinish: { [weak self] result in self?.finished(result, path: path) },
                                  onSegmentStart: { events.yield(.didStartSegment(path: $0)) },
                                  onSegmentFinish: { result in
                                      observer?.recordingDidFinishFile(FinishedRecordingFile(path: result.path, kind: .segment, isPlayable: result.isPlayable))
                                      events.yield(.didFinishSegment(result))
                                  },
                                  onClockDrift: { events.yield(.didMeasureAudioClockDrift(partsPerMillion: $0)) },
                                  onEvent: { event in
                                      if case .didFinishEventClip(let result) = event, result.isPlayable {
                                          observer?.recordingDidFinishFile(FinishedRecordingFile(path: result.path, kind: .eventClip))
                                      }
                                      events.yield(event)
                                  }, tap: tap, fileObserver: observer)
        }
        let installed: RecordingError? = state.withLock { s in
            guard s.pipeline == nil else {
                return RecordingError(.alreadyRecording, "MovieFileOutput: another recording started at the same time")
            }
            guard s.sources != nil else {  // the session stopped, or let the output go, meanwhile
                return RecordingError(.notConnected, "MovieFileOutput: the capture session stopped while the recording was starting")
            }
            s.pipeline = pipeline
            s.lastResult = nil
            return nil
        }
        if let installed {
            pipeline.beginStop()
            pipeline.start()
            throw installed
        }
        pipeline.start()
        if let location = state.withLock({ $0.locationSource }) {
            location.start { [weak pipeline] event in pipeline?.receive(event) }
        }
        sources.wakeWaitingSources()  // a file source waits for an output to consume media
    }

    /// Creates the file at `path` on a thread of its own and asks the recording to switch to it
    /// at the next frame; the file is removed again when the switch cannot be asked for.
    private func switchRecording(of pipeline: RecordingPipeline, to path: String, overwrite: Bool) async throws {
        let file = try await runOnDedicatedThread(name: "movrec-open") { () throws(RecordingError) -> RandomAccessFile in
            do {
                return try RandomAccessFile(path: path, mode: overwrite ? .createOrTruncate : .createNew)
            } catch let error as FileError {
                throw RecordingError(error.code == .alreadyExists ? .fileExists : .fileError,
                                     "MovieFileOutput: creating the movie file: \(error)", underlyingError: error)
            } catch {
                throw RecordingError(.fileError, "MovieFileOutput: creating the movie file \(path): \(error)", underlyingError: error)
            }
        }
        let orientation = state.withLock { s in (try? VideoOrientation(rotationAngle: s.angle, isMirrored: s.mirrored)) ?? .up }
        if let refused = pipeline.requestSwitch(.init(path: path, file: file, overwrite: overwrite, orientation: orientation)) {
            try? file.close()
            try? RandomAccessFile.remove(path)
            throw refused
        }
    }

    /// A Boolean value that indicates whether the recording is paused.
    public var isRecordingPaused: Bool { state.withLock { $0.pipeline?.isPaused ?? false } }

    /// Pauses the recording, like `AVCaptureFileOutput.pauseRecording()` on macOS: nothing is
    /// recorded until ``resumeRecording()``, and the pause leaves no gap in the movie.
    public func pauseRecording() {
        guard let pipeline = state.withLock({ $0.pipeline }) else { return }
        pipeline.pause()
        eventContinuation.yield(.didPauseRecording(path: pipeline.settings.path))
    }

    /// Resumes a paused recording into the same file.
    public func resumeRecording() {
        guard let pipeline = state.withLock({ $0.pipeline }) else { return }
        pipeline.resume()
        eventContinuation.yield(.didResumeRecording(path: pipeline.settings.path))
    }

    /// Stops the recording and waits until the movie is finalized.
    /// - Returns: what was recorded; when nothing was recording, the last recording's result
    ///   (or `nil` if there was none).
    @discardableResult
    public func stopRecording() async -> RecordingResult? {
        let pipeline = state.withLock { $0.pipeline }
        guard let pipeline else { return state.withLock { $0.lastResult } }
        return await withCheckedContinuation { continuation in
            let done: RecordingResult? = state.withLock { s in
                if s.pipeline === pipeline {
                    s.waiters.append(continuation)
                    return nil
                }
                return s.lastResult
            }
            if let done {
                continuation.resume(returning: done)
            } else {
                pipeline.beginStop()
            }
        }
    }

    private func finished(_ result: RecordingResult, path: String) {
        let (waiters, location) = state.withLock { s -> ([CheckedContinuation<RecordingResult, Never>], (any LocationSource)?) in
            // Only the recording in progress clears itself (a pipeline that lost a start race
            // finishes too, and must not orphan the winner).
            guard s.pipeline?.settings.path == path else { return ([], nil) }
            s.pipeline = nil
            s.lastResult = result
            defer { s.waiters = [] }
            return (s.waiters, s.locationSource)
        }
        location?.stop()
        eventContinuation.yield(.didFinishRecording(result))
        for waiter in waiters { waiter.resume(returning: result) }
    }

    // MARK: MediaReceiver

    /// The session this output belongs to.
    let sessionClaim = SessionClaim()

    func connect(_ sources: SourceDescription) {
        state.withLock { $0.sources = sources }
    }

    func disconnect(_ reason: DisconnectReason) {
        let pipeline = state.withLock { s in
            s.sources = nil
            return s.pipeline
        }
        let why = switch reason {
        case .sessionStopped: "the capture session stopped"
        case .removed: "the output was removed from the capture session"
        case .inputsChanged: "the capture session's inputs changed"
        }
        pipeline?.beginStop(reason: RecordingError(.notConnected, "MovieFileOutput: \(why); the movie was finalized up to that point"))
    }

    /// Waits for a recording the disconnect stopped to be finalized, so ``isRecording`` is
    /// `false` when the session's `stopRunning()` or `removeOutput(_:)` returns.
    func finishDisconnecting() async {
        _ = await stopRecording()
    }

    func receive(_ event: VideoSourceEvent) {
        state.withLock { $0.pipeline }?.receive(event)
    }

    var isConsumingMedia: Bool { state.withLock { $0.pipeline != nil } }

    func receive(_ event: AudioSourceEvent) {
        state.withLock { $0.pipeline }?.receive(event)
    }
}
