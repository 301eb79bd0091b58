import MovieContainer
import MoviePlatform

// Event clips: the seconds before and after a moment saved into a movie of their own while the
// recording goes on, as a dash-cam saves an impact.
extension MovieFileOutput {
    /// Where event clips go and how far back they can reach; `nil` (the default) keeps no
    /// pre-roll and saves no clip. Set it before the recording starts: the recording keeps the
    /// last ``EventClipSettings/preRollDuration`` of its media in memory, encoded, for
    /// ``saveEventClip(preRoll:postRoll:)``.
    public var eventClipSettings: EventClipSettings? {
        get { state.withLock { $0.eventClipSettings } }
        set { state.withLock { $0.eventClipSettings = newValue } }
    }

    /// Saves an event clip: a new movie in ``EventClipSettings/directory`` from the last IDR at
    /// or before `preRoll` ago through `postRoll` from now, while the recording goes on
    /// untouched. A call during a clip's post-roll extends that clip to `postRoll` from now
    /// instead. It never waits: the writing thread begins the clip, and the events say
    /// ``Event/didStartEventClip(path:)`` and ``Event/didFinishEventClip(_:)``.
    ///
    /// The clip starts at media time 0, carries the recording's orientation, audio and timed
    /// metadata over its span, is written fragmented (a kill leaves it repairable) and is
    /// marked with ``EventClipSettings/lockAttribute``; segment retention never deletes it,
    /// and a segment that holds part of it stays until it is finished. A clip triggered less
    /// than `preRoll` after the start begins with the recording. The recording's end ends a
    /// clip's post-roll.
    /// - Parameters:
    ///   - preRoll: how far back the clip reaches; at most the settings' pre-roll (more is
    ///     cut to it). `nil` takes the settings' whole pre-roll.
    ///   - postRoll: how long the clip goes on after now.
    /// - Throws: ``RecordingError``: ``RecordingError/Code/notConnected`` when not recording,
    ///   ``RecordingError/Code/invalidSettings`` without ``eventClipSettings`` at the
    ///   recording's start, for a negative duration, or when clips are asked for faster than
    ///   the writer begins them.
    public func saveEventClip(preRoll: Duration? = nil, postRoll: Duration = .seconds(5)) throws(RecordingError) {
        guard let pipeline = state.withLock({ $0.pipeline }) else {
            throw RecordingError(.notConnected, "MovieFileOutput: saving an event clip: nothing is recording; start a recording with eventClipSettings set first")
        }
        guard (preRoll ?? .zero) >= .zero, postRoll >= .zero else {
            throw RecordingError(.invalidSettings, "MovieFileOutput: saving an event clip: a pre-roll of \(preRoll ?? .zero) and a post-roll of \(postRoll); neither may be negative")
        }
        let kept = pipeline.settings.eventClips?.preRollDuration ?? .zero
        if let refused = pipeline.requestEventClip(preRoll: min(preRoll ?? kept, kept), postRoll: postRoll) { throw refused }
    }

    /// Checks event clip settings before a recording starts.
    static func check(_ settings: EventClipSettings) throws(RecordingError) {
        guard DirectoryEntries.isDirectory(settings.directory) else {
            throw RecordingError(.invalidSettings, "MovieFileOutput: eventClipSettings: the directory \(settings.directory) does not exist; create it first")
        }
        guard settings.preRollDuration >= .zero, settings.preRollDuration <= EventClipSettings.maximumPreRollDuration else {
            throw RecordingError(.invalidSettings, "MovieFileOutput: eventClipSettings: a pre-roll of \(settings.preRollDuration) is not from 0 to \(EventClipSettings.maximumPreRollDuration)")
        }
        guard settings.maximumPreRollBytes >= 1 << 20 else {
            throw RecordingError(.invalidSettings, "MovieFileOutput: eventClipSettings: maximumPreRollBytes \(settings.maximumPreRollBytes) is below 1 MiB; a clip needs room for at least a group of pictures")
        }
    }
}
