/// A file a recording has finished writing: final, never written again.
public struct FinishedRecordingFile: Sendable, Hashable {
    /// What the file is, which decides the order it is uploaded in.
    public enum Kind: Sendable, Hashable {
        /// An event clip (``MovieFileOutput/saveEventClip(preRoll:postRoll:)``).
        case eventClip
        /// A photo.
        case photo
        /// A segment of a segmented recording, finished because the recording went on.
        case segment
        /// A recording's last (or only) file.
        case movie
    }

    /// The file's path.
    public var path: String
    /// What the file is.
    public var kind: Kind
    /// A Boolean value that indicates whether the movie is finalized (a photo always is).
    public var isPlayable: Bool

    /// Describes a finished file.
    public init(path: String, kind: Kind, isPlayable: Bool = true) {
        self.path = path
        self.kind = kind
        self.isPlayable = isPlayable
    }
}
