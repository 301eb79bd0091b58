import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// Event clips: the writing thread keeps the last seconds of the recording (EncodedPreRoll) and
// writes a clip of them and of what follows when asked (EventClip), beside the recording's own
// files, which go on untouched.
extension RecordingPipeline {
    /// A clip asked for: its trigger on the recording's timeline and how far it reaches either
    /// side, in video ticks, and the wall-clock second of the trigger (its name).
    struct EventRequest: Sendable {
        var trigger: Int64
        var preRoll: Int64
        var postRoll: Int64
        var unixSeconds: Int64
    }

    /// What the writing thread keeps for event clips: the pre-roll and the clips being written.
    struct EventState {
        var preRoll: EncodedPreRoll
        var clips: [EventClip] = []
        /// Whether the recording's audio has ended, so clips stop waiting for theirs.
        var audioEnded = false
    }

    /// At most this many clips asked for and not yet begun.
    static let maximumPendingEventRequests = 16

    /// Asks for a clip reaching `preRoll` back from now and `postRoll` on (``MovieFileOutput``'s
    /// `saveEventClip`); the writing thread begins it, or extends the clip whose post-roll is
    /// running, at its next item. Before the first frame the trigger is the recording's start.
    /// - Returns: nil when asked; otherwise why it cannot be.
    func requestEventClip(preRoll: Duration, postRoll: Duration) -> RecordingError? {
        guard settings.eventClips != nil else {
            return RecordingError(.invalidSettings, "MovieFileOutput: saving an event clip: no eventClipSettings were set when this recording started; set them, then start the recording")
        }
        let now = MonotonicClock.now()
        let rate = Int64(timescale)
        return state.withLock { s in
            guard !s.stopping, s.failed == nil else {
                return RecordingError(.notConnected, "MovieFileOutput: saving an event clip: the recording is stopping")
            }
            guard s.eventRequests.count < Self.maximumPendingEventRequests else {
                return RecordingError(.invalidSettings, "MovieFileOutput: saving an event clip: \(Self.maximumPendingEventRequests) clips are waiting to begin already; the writer is behind")
            }
            var trigger: Int64 = 0
            if let start = s.videoStart {
                let time = now &- s.pauseOffset
                trigger = Self.ticks(time > start ? Int64(clamping: time - start) : 0, rate: rate)
            }
            s.eventRequests.append(EventRequest(trigger: trigger, preRoll: Self.ticks(preRoll, rate: rate),
                                                postRoll: Self.ticks(postRoll, rate: rate),
                                                unixSeconds: Int64(SystemClock.unixSeconds())))
            return nil
        }
    }

    /// Duration to ticks of `rate`.
    static func ticks(_ duration: Duration, rate: Int64) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * rate + ticks(attoseconds / 1_000_000_000, rate: rate)
    }

    /// The writing thread's start of event clips: a pre-roll as long as the settings ask.
    func makeEventState() -> EventState? {
        guard let events = settings.eventClips else { return nil }
        return EventState(preRoll: EncodedPreRoll(duration: events.preRollDuration, byteLimit: events.maximumPreRollBytes,
                                                  videoTimescale: timescale, audioRate: UInt32(clamping: audioRate)))
    }

    /// Keeps `item` in the pre-roll and gives it to the clips being written, begins the clips
    /// asked for and finishes those complete. A clip that fails is reported and dropped: the
    /// recording goes on.
    func recordForEvents(_ item: WriterItem, _ segments: inout OpenSegments) {
        // Taken out while in use, so the pre-roll's storage has one owner and is never copied.
        guard var events = segments.events else { return }
        segments.events = nil
        defer { segments.events = events }
        switch item {
        case .video(let sample, _):
            events.preRoll.append(sample)
            each(&events) { try $0.append(sample) }
        case .eventAudio(let chunk):
            events.preRoll.append(chunk)
            each(&events) { try $0.append(chunk) }
        case .metadata(let items, let track, let time, _):
            let sample = EncodedPreRoll.MetadataSample(track: track, time: time, items: items)
            events.preRoll.append(sample)
            each(&events) { try $0.append(sample) }
        case .audioEnded:
            events.audioEnded = true
        default:
            break
        }
        for request in state.withLock({ s in defer { s.eventRequests = [] }; return s.eventRequests }) {
            begin(request, &events, orientation: segments.current?.orientation ?? settings.orientation)
        }
        let complete = events.clips.filter { $0.isComplete(audioEnded: events.audioEnded) }
        guard !complete.isEmpty else { return }
        events.clips.removeAll { clip in complete.contains { $0 === clip } }
        for clip in complete { finish(clip, failed: false) }
        segments.events = events
        enforceRetention(&segments)
        enforceEventBudget(writing: events.clips.map(\.segment.path))
    }

    /// Runs `body` on every clip being written; a clip that throws is finished as far as it got
    /// and reported with the error.
    private func each(_ events: inout EventState, _ body: (EventClip) throws -> Void) {
        var failed: [(EventClip, Error)] = []
        for clip in events.clips {
            do { try body(clip) } catch { failed.append((clip, error)) }
        }
        for (clip, error) in failed {
            events.clips.removeAll { $0 === clip }
            finish(clip, failed: true, error: error)
        }
    }

    /// Extends the clip whose post-roll the trigger falls in, or begins a new clip.
    private func begin(_ request: EventRequest, _ events: inout EventState, orientation: VideoOrientation) {
        let end = request.trigger + max(1, request.postRoll)
        if let running = events.clips.last, request.trigger <= running.end, running.extend(to: end) { return }
        guard let directory = settings.eventClips?.directory else { return }
        let name = EventClipName(unixSeconds: request.unixSeconds)
        var lastError: Error?
        var path = directory + "/" + name.fileName(attempt: 1)
        for attempt in 1...100 {
            path = directory + "/" + name.fileName(attempt: attempt)
            do {
                let clip = try EventClip(
                    path: path, tracks: tracks, configuration: eventClipConfiguration(unixSeconds: request.unixSeconds),
                    orientation: orientation, preRoll: events.preRoll, requestedStart: request.trigger - request.preRoll,
                    end: end, audioFormat: try audio.map { ($0.format, try Self.makeAudioEncoder(settings.audio, for: $0.format)) })
                ExtendedAttribute.set(EventClipSettings.lockAttribute, to: "1", at: path)
                events.clips.append(clip)
                onEvent(.didStartEventClip(path: path))
                return
            } catch let error as RecordingError where error.code == .fileExists {
                lastError = error
            } catch {
                lastError = error
                break
            }
        }
        let error = lastError as? RecordingError
            ?? RecordingError(.fileError, "MovieFileOutput: beginning the event clip \(path): \(lastError.map { "\($0)" } ?? "")", underlyingError: lastError)
        MovieRecorderLogging.log(.warning, "recording", "could not begin an event clip: \(error)")
        onEvent(.didFinishEventClip(RecordingResult(failedEventClip: path, error: error)))
    }

    /// A clip's writer settings: the recording's, always fragmented (a clip must survive a
    /// kill as the recording does), created at the trigger.
    private func eventClipConfiguration(unixSeconds: Int64) -> MovieWriter.Configuration {
        var configuration = RecordingSegment.configuration(settings, creationTime: QuickTimeTimestamp(unixSeconds: unixSeconds))
        if configuration.fragmentInterval == nil { configuration.fragmentInterval = .seconds(1) }
        return configuration
    }

    /// Finishes `clip` (or, after a failure, closes what it wrote, repaired) and reports it.
    func finish(_ clip: EventClip, failed: Bool, error: Error? = nil) {
        var failure = error
        if !failed {
            do { try clip.finish() } catch { failure = error }
        } else {
            clip.abandon()
        }
        let (info, size, _) = clip.segment.closeAndReadBack(failed: failed || failure != nil, fragmented: true)
        var result = RecordingResult(eventClip: clip.segment, info: info, size: size)
        if let failure {
            result.error = failure as? RecordingError
                ?? RecordingError(.fileError, "MovieFileOutput: writing the event clip \(clip.segment.path): \(failure)", underlyingError: failure)
        }
        onEvent(.didFinishEventClip(result))
    }

    /// Deletes the oldest clips in the event directory while they take more than the clips'
    /// byte budget; never one being written, and never the newest.
    private func enforceEventBudget(writing: [String]) {
        guard let events = settings.eventClips, let budget = events.maximumTotalSize,
              let names = DirectoryEntries.names(in: events.directory) else { return }
        var clips = names.filter(EventClipName.isClip).sorted().compactMap { name -> (path: String, size: UInt64)? in
            let path = events.directory + "/" + name
            return writing.contains(path) ? nil : DirectoryEntries.regularFileSize(path).map { (path, $0) }
        }
        // A clip not yet uploaded counts toward the budget but is not deleted.
        let held = clips.filter { !(fileObserver?.retentionMayDelete($0.path) ?? true) }.map(\.path)
        var total = clips.reduce(UInt64(0)) { $0 + $1.size }
        while total > budget, clips.count > 1, let index = clips.dropLast().firstIndex(where: { !held.contains($0.path) }) {
            let oldest = clips.remove(at: index)
            do {
                try RandomAccessFile.remove(oldest.path)
                total -= oldest.size
            } catch {
                MovieRecorderLogging.log(.warning, "recording", "could not delete the old event clip \(oldest.path): \(error)")
            }
        }
    }

    /// At the end of the recording: every clip still being written is finished with what it
    /// has (the recording failed: closed and repaired).
    func finishEventClips(_ segments: inout OpenSegments, failed: Bool) {
        guard let events = segments.events else { return }
        segments.events?.clips = []
        for clip in events.clips { finish(clip, failed: failed) }
        if !events.clips.isEmpty { enforceEventBudget(writing: []) }
    }

    /// Whether a finished file spanning `span` (video ticks on the recording's timeline) holds
    /// part of a clip still being written, so retention keeps it until the clip is finished.
    func isNeededByEventClip(_ span: Range<Int64>, _ segments: OpenSegments) -> Bool {
        segments.events?.clips.contains { $0.start < span.upperBound && span.lowerBound < $0.end } ?? false
    }
}
