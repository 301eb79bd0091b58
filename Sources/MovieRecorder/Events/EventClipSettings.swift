/// Where a recording keeps its event clips and how much it holds for them: the directory, how
/// far back a clip can reach (the pre-roll kept in memory) and the clips' own byte budget.
///
/// Set ``MovieFileOutput/eventClipSettings`` before a recording starts; then
/// ``MovieFileOutput/saveEventClip(preRoll:postRoll:)`` saves the seconds before and after a
/// moment into a movie of its own in ``directory``. See <doc:LongRecordings>.
public struct EventClipSettings: Sendable, Hashable {
    /// The directory the clips are written to, named `event-YYYYMMDD-HHMMSS.mov` (UTC) by the
    /// moment they were saved. It must exist. Segment retention never deletes from it.
    public var directory: String
    /// How far back the recording keeps its media in memory, so a clip can start before its
    /// trigger: at most 10 minutes. 10 seconds by default.
    public var preRollDuration: Duration
    /// The most memory the kept media may take: past it, the oldest seconds go and a clip then
    /// starts later than asked. 64 MiB by default; at least 1 MiB.
    public var maximumPreRollBytes: Int
    /// The clips' own byte budget: when a clip is finished, the oldest clips in ``directory``
    /// are deleted until the clips there take at most this many bytes (the newest always
    /// stays). `nil`, the default, never deletes a clip.
    public var maximumTotalSize: UInt64?

    /// Creates settings for clips in `directory` that reach `preRollDuration` back.
    public init(directory: String, preRollDuration: Duration = .seconds(10), maximumPreRollBytes: Int = 64 << 20,
                maximumTotalSize: UInt64? = nil) {
        self.directory = directory
        self.preRollDuration = preRollDuration
        self.maximumPreRollBytes = maximumPreRollBytes
        self.maximumTotalSize = maximumTotalSize
    }

    /// The extended attribute set on every clip (value `1`), where the file system keeps them:
    /// a mark a deleter of other software can respect, as openpilot's does.
    public static let lockAttribute = "user.movierecorder.locked"

    /// The longest pre-roll kept.
    public static let maximumPreRollDuration = Duration.seconds(600)
}
