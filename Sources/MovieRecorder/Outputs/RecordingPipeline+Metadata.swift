import MovieContainer
import MoviePlatform
import MovieCapture

// Timed metadata: the orientation track (from the frames), the location track and the
// application's keys (from any thread), each a `mebx` track describing the video.
extension RecordingPipeline {
    /// The metadata track of the capture orientation: always the first.
    static let orientationTrack = 0

    /// The timed metadata tracks a recording with `settings` writes, in the order
    /// ``RecordingSegment/Tracks/metadata`` lists them.
    static func metadataTracks(_ settings: Settings, timescale: UInt32) -> [MetadataTrackFormat] {
        var formats = [MetadataTrackFormat(keys: [.videoOrientation], timescale: timescale)]
        if settings.recordsLocation { formats.append(MetadataTrackFormat(keys: LocationFix.keys, timescale: timescale)) }
        for key in settings.timedMetadataKeys { formats.append(MetadataTrackFormat(keys: [key], timescale: timescale)) }
        return formats
    }

    /// The metadata track that holds `key`, if the recording has one.
    func metadataTrack(of key: TimedMetadataKey) -> Int? {
        tracks.metadata.firstIndex { $0.keys.contains(key) }
    }

    /// The orientation sample for frames captured with `orientation`.
    static func orientationItems(_ orientation: VideoOrientation) -> [TimedMetadataItem] {
        [TimedMetadataItem(key: .videoOrientation, value: .int(Int64(orientation.exifOrientation)))]
    }

    /// Sends `items` of metadata track `track` to the writing thread, holding from `captureTime`
    /// (on ``MonotonicClock``) on: placed on the recording's timeline as a frame captured then
    /// would be. Nothing is sent before the first frame, while paused or once stopping, or when
    /// the writing queue is full (the writer is behind); the caller never waits.
    /// - Returns: Whether the sample was sent.
    @discardableResult
    func sendMetadata(_ items: [TimedMetadataItem], track: Int, captureTime: UInt64) -> Bool {
        let placed: (time: Int64, segment: Int)? = state.withLock { s in
            guard let start = s.videoStart, !s.paused, !s.stopping, s.failed == nil else { return nil }
            let time = captureTime &- s.pauseOffset
            let nanoseconds = time > start ? Int64(clamping: time - start) : 0
            let segment = s.segments.lastIndex { $0.time <= time } ?? 0
            return (Self.ticks(nanoseconds, rate: Int64(timescale)), segment)
        }
        guard let placed else { return false }
        return writing.offer(.metadata(items, track: track, time: placed.time, segment: placed.segment))
    }
}

extension RecordingPipeline {
    /// Records a location source's event: a fix at most once a second (a faster receiver's
    /// fixes in between are left out), and a loss as an empty sample, once, so the track shows
    /// the gap. Called on the source's thread.
    func receive(_ event: LocationEvent) {
        guard let track = metadataTrack(of: .locationISO6709) else { return }
        switch event {
        case .fix(let fix):
            let due: Bool = state.withLock { s in
                if let last = s.lastLocationCapture, fix.captureTime < last + 950_000_000, !s.locationLost { return false }
                return true
            }
            guard due, sendMetadata(fix.items, track: track, captureTime: fix.captureTime) else { return }
            state.withLock { s in
                s.lastLocationCapture = fix.captureTime
                s.locationLost = false
            }
        case .unavailable:
            let lost = state.withLock { s in
                defer { s.locationLost = true }
                return s.locationLost
            }
            if !lost { sendMetadata([], track: track, captureTime: MonotonicClock.now()) }
        }
    }
}
