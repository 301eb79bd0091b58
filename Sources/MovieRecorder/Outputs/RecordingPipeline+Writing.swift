import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// The writing thread: every item off the writing queue into its segment's movie; a segment is
// finished once a later one has its first frame and its own audio has ended.
extension RecordingPipeline {
    /// The segments the writing thread has open, and what it remembers of those it finished.
    struct OpenSegments {
        var open: [Int: RecordingSegment]
        /// The newest segment that has video.
        var videoSegment = 0
        /// Segments up to this one have all their audio.
        var audioEndedThrough = -1
        /// This recording's finished files, oldest first, with their sizes: what retention may
        /// delete.
        var finished: [(path: String, size: UInt64, span: Range<Int64>)] = []
        /// Audio for segments whose first frame has not come yet (the encoder's delay): a file is
        /// created with its first frame, so a kill never leaves one without a picture.
        var waitingAudio: [Int: [WriterItem]] = [:]
        /// The values each metadata track holds now: what a new segment starts with.
        var currentMetadata: [Int: [TimedMetadataItem]] = [:]
        /// The pre-roll and the event clips being written; nil when the recording keeps none.
        var events: EventState?

        init(first: RecordingSegment, events: EventState?) {
            open = [0: first]
            self.events = events
        }

        /// The newest open segment: the one being recorded.
        var current: RecordingSegment? { open.keys.max().flatMap { open[$0] } }
    }

    /// What the writing thread keeps from one item to the next.
    struct WriteLoopState {
        var videoEnded = false
        var audioEnded: Bool
        /// Once the video has ended, when the writing gives up waiting for the audio to end.
        var videoEndDeadline: UInt64?
    }

    /// Writes what comes off the writing queue until both video and audio have ended, then
    /// finishes the open movies; a failed write fails the recording.
    func writeLoop(_ segments: inout OpenSegments) {
        var loop = WriteLoopState(audioEnded: audio == nil)
        do {
            while !(loop.videoEnded && loop.audioEnded), let item = nextWriterItem(until: loop.videoEndDeadline) {
                try write(item, &loop, &segments)
                recordForEvents(item, &segments)
                publishProgress(segments)
            }
            try finishAll(&segments)
            finishEventClips(&segments, failed: false)
        } catch let error as RecordingError {
            fail(error)
        } catch {
            fail(RecordingError(.fileError, "MovieFileOutput: writing \(segments.current?.path ?? settings.path): \(error)", underlyingError: error))
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

    /// Appends one item to its segment's movie.
    private func write(_ item: WriterItem, _ loop: inout WriteLoopState, _ segments: inout OpenSegments) throws {
        let bytesPerFrame = audio?.format.bytesPerFrame ?? 1
        switch item {
        case .video(let sample, let index):
            let segment = try self.segment(index, &segments)
            if index > segments.videoSegment { try endVideo(before: index, &segments) }
            try segment.appendVideo(sample, start: segment.start.video)
            for waiting in segments.waitingAudio.removeValue(forKey: index) ?? [] { try write(waiting, &loop, &segments) }
        case .audioFrames(let buffer, let placement, let index):
            guard let segment = segments.open[index] else { return wait(item, for: index, &segments) }
            try segment.appendAudio(buffer, placement, bytesPerFrame: bytesPerFrame)
        case .audioPackets(let packets, let startTime, let end, let index):
            guard let segment = segments.open[index] else { return wait(item, for: index, &segments) }
            try segment.appendAudio(packets: packets, startTime: startTime, end: end)
        case .metadata(let items, let track, let time, let index):
            guard let segment = segments.open[index] else {
                if index > segments.videoSegment { wait(item, for: index, &segments) }
                return
            }
            try segment.appendMetadata(items, track: track, time: time - segment.start.video)
            if index == segments.open.keys.max() { segments.currentMetadata[track] = items }
        case .eventAudio:
            break  // for the event clips alone
        case .audioSegmentEnded(let index):
            segments.audioEndedThrough = max(segments.audioEndedThrough, index)
            if let segment = segments.open[index] {
                segment.audioEnded = true
                try finishIfComplete(index, &segments)
            }
        case .videoEnded:
            loop.videoEnded = true
            loop.videoEndDeadline = MonotonicClock.now() + 2_000_000_000  // the audio has two seconds to catch up
        case .audioEnded:
            loop.audioEnded = true
            segments.audioEndedThrough = .max
            for segment in segments.open.values { segment.audioEnded = true }
            for index in segments.open.keys.sorted() { try finishIfComplete(index, &segments) }
        }
    }

    /// Keeps audio for segment `index` until its first frame creates its file (the newest 500
    /// items).
    private func wait(_ item: WriterItem, for index: Int, _ segments: inout OpenSegments) {
        segments.waitingAudio[index, default: []].append(item)
        if segments.waitingAudio[index]!.count > 500 { segments.waitingAudio[index]!.removeFirst() }
    }

    /// Where segment `index` starts, in video and audio ticks from the recording's start.
    func startTicks(of index: Int) -> (video: Int64, audio: Int64) {
        state.withLock { s in
            guard let start = s.videoStart, index < s.segments.count else { return (0, 0) }
            return (videoStartTicks(of: index, in: s.segments, videoStart: start), audioStartTicks(of: index, in: s.segments, videoStart: start))
        }
    }

    /// The open segment `index`, its file created with its first frame.
    private func segment(_ index: Int, _ segments: inout OpenSegments) throws -> RecordingSegment {
        if let segment = segments.open[index] { return segment }
        guard let start = state.withLock({ index < $0.segments.count ? $0.segments[index] : nil }) else {
            throw RecordingError(.fileError, "MovieFileOutput: media arrived for segment \(index), which was never started")
        }
        let segment = try RecordingSegment(
            index: index, path: start.path, file: start.file, overwrite: start.overwrite, orientation: start.orientation,
            tracks: tracks, configuration: RecordingSegment.configuration(settings, creationTime: QuickTimeTimestamp(unixSeconds: start.unixSeconds)))
        segment.start = startTicks(of: index)
        // Each file starts with the values in force, so it reads alone; a track whose new value
        // is waiting for this segment's first frame (a turn that started it) starts with that.
        var startsWithWaiting = Set<Int>()
        for case .metadata(_, let track, let time, _) in segments.waitingAudio[index] ?? [] where time <= segment.start.video {
            startsWithWaiting.insert(track)
        }
        for (track, items) in segments.currentMetadata.sorted(by: { $0.key < $1.key }) where !startsWithWaiting.contains(track) {
            try segment.appendMetadata(items, track: track, time: 0)
        }
        if index <= segments.audioEndedThrough { segment.audioEnded = true }
        segments.open[index] = segment
        onSegmentStart(start.path)
        enforceRetention(&segments)
        return segment
    }

    /// The first frame of segment `index` came: every earlier segment's video ends where it
    /// starts, and those whose audio has ended too are finished.
    private func endVideo(before index: Int, _ segments: inout OpenSegments) throws {
        let end = segments.open[index]?.start.video ?? startTicks(of: index).video
        for earlier in segments.open.keys.sorted() where earlier < index {
            guard let segment = segments.open[earlier], segment.videoEnd == nil else { continue }
            segment.videoEnd = end - segment.start.video
            segment.audioLimit = audioTicks(videoTicks: end) - segment.start.audio
        }
        segments.videoSegment = index
        for earlier in segments.open.keys.sorted() where earlier < index { try finishIfComplete(earlier, &segments) }
    }

    /// Finishes segment `index` once both its tracks are complete and a later segment records:
    /// the movie atom, the flush, its result, and retention.
    private func finishIfComplete(_ index: Int, _ segments: inout OpenSegments) throws {
        guard let segment = segments.open[index], segment.isComplete, index < segments.videoSegment else { return }
        try segment.finish(audioRate: audioRate, timescale: timescale)
        segments.open[index] = nil
        let (info, size, _) = segment.closeAndReadBack(failed: false, fragmented: settings.fragmentInterval != nil)
        segments.finished.append((segment.path, info?.tree.fileSize ?? size, segment.span))
        onSegmentFinish(result(of: segment, info: info, size: size, isLast: false))
        enforceRetention(&segments)
    }

    /// At the end: the video of every open segment ends (the newest where the recording's does)
    /// and each is finished.
    private func finishAll(_ segments: inout OpenSegments) throws {
        let (videoStart, videoEnd) = state.withLock { ($0.videoStart, $0.videoEnd) }
        for index in segments.open.keys.sorted() {
            guard let segment = segments.open[index] else { continue }
            if segment.videoEnd == nil, let videoStart, let videoEnd {
                let end = Self.ticks(Int64(videoEnd - videoStart), rate: Int64(timescale))
                segment.videoEnd = end - segment.start.video
                segment.audioLimit = audioTicks(videoTicks: end) - segment.start.audio
            }
            try segment.finish(audioRate: audioRate, timescale: timescale)
        }
    }

    /// Deletes this recording's oldest finished files while there are more than
    /// ``Segmenting/maximumCount`` files or more than ``Segmenting/maximumTotalSize`` bytes in
    /// all, counting the open ones (never deleted). A file that holds part of an event clip
    /// still being written stays until the clip is finished.
    func enforceRetention(_ segments: inout OpenSegments) {
        guard let segmenting = settings.segments else { return }
        let openBytes = segments.open.values.reduce(UInt64(0)) { $0 + $1.writer.bytesWritten }
        func tooMany() -> Bool {
            if let count = segmenting.maximumCount, segments.finished.count + segments.open.count > count { return true }
            if let bytes = segmenting.maximumTotalSize, segments.finished.reduce(openBytes, { $0 + $1.size }) > bytes { return true }
            return false
        }
        while tooMany(), let (deletable, forcedAt) = deletableSegment(segments) {
            let oldest = segments.finished.remove(at: deletable)
            do {
                if let forcedAt { fileObserver?.retentionWillDeleteHeldFile(oldest.path, freeBytes: forcedAt) }
                try RandomAccessFile.remove(oldest.path)
                onEvent(.didDeleteSegment(path: oldest.path))
            } catch let error as FileError where error.code == .notFound {
                continue  // deleted by someone else (an upload queue that deletes what it stored)
            } catch {
                MovieRecorderLogging.log(.warning, "recording", "could not delete the old segment \(oldest.path): \(error)")
            }
        }
    }

    /// The oldest finished segment retention may delete: not part of an event clip being
    /// written, and not held by the ``fileObserver``, unless the disk's free space is within
    /// two of the largest segments of ``MovieFileOutput/minFreeDiskSpaceLimit`` (of a full disk
    /// without one); then the free space comes with it, for the observer's event.
    private func deletableSegment(_ segments: OpenSegments) -> (Int, forcedAt: UInt64?)? {
        let candidates = segments.finished.indices.filter { !isNeededByEventClip(segments.finished[$0].span, segments) }
        if let free = candidates.first(where: { fileObserver?.retentionMayDelete(segments.finished[$0].path) ?? true }) {
            return (free, nil)
        }
        guard let oldest = candidates.first, let available = FileSystemSpace.available(at: segments.finished[oldest].path) else { return nil }
        let largest = segments.finished.map(\.size).max() ?? 0
        return available < (settings.minFreeDiskSpace ?? 0) + 2 * largest ? (oldest, available) : nil
    }

    /// Records the media written and the current file's size for ``progress``, then checks the
    /// limits.
    private func publishProgress(_ segments: OpenSegments) {
        guard let current = segments.current else { return }
        let writer = current.writer
        let recorded = writer.recordedDuration * 1_000_000_000 / UInt64(writer.configuration.movieTimescale)
        let bytes = writer.bytesWritten
        state.withLock { s in
            let before = current.index < s.segments.count && s.videoStart != nil ? s.segments[current.index].time - s.videoStart! : 0
            s.writtenDuration = Self.duration(nanoseconds: before + recorded)
            s.bytesWritten = bytes
        }
        checkLimits(current)
    }

    /// Stops the recording at ``MovieFileOutput/maxRecordedFileSize`` or when the disk's free
    /// space falls below ``MovieFileOutput/minFreeDiskSpaceLimit`` (checked twice a second). A
    /// switch by size is the encoding thread's, from the bytes encoded (``SegmentSizeEstimator``).
    private func checkLimits(_ current: RecordingSegment) {
        let bytesWritten = current.writer.bytesWritten
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
        if !current.file.isLinked {
            fail(RecordingError(.fileError, "MovieFileOutput: \(current.path) was deleted, or its directory removed, while recording; the recording was stopped"))
            return
        }
        if let minimum = settings.minFreeDiskSpace, let free = FileSystemSpace.available(at: current.path), free < minimum {
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

    /// Closes every open file, repairing one a failure left unfinished, and reports them: the
    /// newest as the recording's result, the others as finished segments. A file created for a
    /// switch that was never made is removed.
    func finish(_ segments: inout OpenSegments) {
        let (failed, pending, started) = state.withLock { s in (s.failed != nil, s.pendingSwitch, s.segments) }
        if let file = pending?.file, let path = pending?.path {
            try? file.close()
            try? RandomAccessFile.remove(path)
        }
        // A switch made at a frame that never reached a file (the recording stopped or failed
        // first): the file created for it goes.
        let newestOpened = max(segments.videoSegment, segments.open.keys.max() ?? 0)
        for start in started.dropFirst(newestOpened + 1) {
            guard let file = start.file else { continue }
            try? file.close()
            try? RandomAccessFile.remove(start.path)
        }
        finishEventClips(&segments, failed: failed)
        let indices = segments.open.keys.sorted()
        for index in indices {
            guard let segment = segments.open[index] else { continue }
            let (info, size, noFrames) = segment.closeAndReadBack(failed: failed, fragmented: settings.fragmentInterval != nil)
            segments.open[index] = nil
            guard index == indices.last else {
                if info != nil { segments.finished.append((segment.path, info!.tree.fileSize, segment.span)) }
                onSegmentFinish(result(of: segment, info: info, size: size, isLast: false))
                continue
            }
            if noFrames {
                state.withLock { s in
                    if s.failed == nil {
                        s.failed = RecordingError(.notConnected, "MovieFileOutput: no video frame arrived before the recording stopped, so no movie was kept")
                    }
                }
            }
            segments.finished.append((segment.path, info?.tree.fileSize ?? size, segment.span))
            let last = result(of: segment, info: info, size: size, isLast: true)
            // The observer holds the last file before retention looks at it.
            if RandomAccessFile.exists(last.path) {
                fileObserver?.recordingDidFinishFile(FinishedRecordingFile(path: last.path, kind: .movie, isPlayable: last.isPlayable))
            }
            enforceRetention(&segments)
            leavePressure()
            onFinish(last)
        }
    }

    /// The result of `segment`: its movie as read back, the counters while it recorded, and,
    /// for the last, why the recording ended.
    private func result(of segment: RecordingSegment, info: MovieInfo?, size: UInt64, isLast: Bool) -> RecordingResult {
        state.withLock { s in
            let start = segment.index < s.segments.count ? s.segments[segment.index] : nil
            let next = segment.index + 1 < s.segments.count ? s.segments[segment.index + 1] : nil
            let dropped = (next?.dropped ?? s.dropped) - (start?.dropped ?? 0)
            let planned = (next?.plannedDropped ?? s.plannedDropped) - (start?.plannedDropped ?? 0)
            let corrupted = (next?.corrupted ?? s.corrupted) - (start?.corrupted ?? 0)
            let overruns = (next?.overruns ?? s.overruns) - (start?.overruns ?? 0)
            var result = RecordingResult(
                path: segment.path,
                duration: info.map { Self.duration(nanoseconds: $0.movieHeader.duration * 1_000_000_000 / UInt64(max(1, $0.movieHeader.timescale))) } ?? s.writtenDuration,
                fileSize: info?.tree.fileSize ?? size,
                frameCount: Int(info?.videoTrack?.sampleCount ?? 0),
                droppedFrameCount: dropped,
                corruptedFrameCount: corrupted,
                audioOverrunCount: overruns,
                orientation: segment.orientation,
                rotationChanges: s.rotationChanges.filter { $0.segment == segment.index }.map(\.change),
                isPlayable: info != nil,
                error: isLast ? (s.failed ?? s.stopReason) : nil,
                interruption: isLast ? s.interruption : nil)
            result.finalizationDuration = segment.finalizationDuration
            result.plannedDroppedFrameCount = planned
            result.audioClockDrift = s.audioClockDrift
            result.isAudioClockCorrected = audioCorrected
            return result
        }
    }
}
