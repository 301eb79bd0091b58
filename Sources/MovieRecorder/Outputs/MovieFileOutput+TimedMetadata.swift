import MovieContainer
import MoviePlatform
import MovieCapture

// Timed metadata of a recording: besides the orientation track every movie has, a location
// track from a location source and the application's own keys.
extension MovieFileOutput {
    /// Where the camera is while it records: each fix (at most one a second) becomes a sample
    /// of a timed location track (`com.apple.quicktime.location.ISO6709` and its companions,
    /// `LocationFix.keys`), a loss of the position an empty sample. Set it before the
    /// recording starts; the output starts the source with the recording and stops it after.
    public var locationSource: (any LocationSource)? {
        get { state.withLock { $0.locationSource } }
        set { state.withLock { $0.locationSource = newValue } }
    }

    /// The application's own timed keys, such as a sensor's reading: each becomes a timed
    /// metadata track of the movies recorded from now on, filled by
    /// ``appendTimedMetadata(_:)``. Set them before the recording starts.
    public var timedMetadataKeys: [TimedMetadataKey] {
        get { state.withLock { $0.timedMetadataKeys } }
        set { state.withLock { $0.timedMetadataKeys = newValue } }
    }

    /// Records values of ``timedMetadataKeys`` that hold from now on (captured now, placed on
    /// the movie's timeline as a frame captured now would be), each in its key's track. It never
    /// waits: a value is left out while paused or before the first frame, and when the writer
    /// is behind.
    /// - Returns: Whether every value was sent to the movie; false when not recording, or for a
    ///   key that is not among ``timedMetadataKeys`` or a value not of its key's type.
    @discardableResult
    public func appendTimedMetadata(_ items: [TimedMetadataItem]) -> Bool {
        guard let pipeline = state.withLock({ $0.pipeline }) else { return false }
        let keys = pipeline.settings.timedMetadataKeys
        let now = MonotonicClock.now()
        var sent = true
        for item in items {
            guard keys.contains(item.key), item.key.encode(item.value) != nil, let track = pipeline.metadataTrack(of: item.key) else {
                sent = false
                continue
            }
            sent = pipeline.sendMetadata([item], track: track, captureTime: now) && sent
        }
        return sent
    }
}
