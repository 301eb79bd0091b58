import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// A change of the output's rotation while a recording ran. The movie keeps the orientation it
/// started with, as on Apple platforms; these are reported so an application can react.
public struct RotationChange: Hashable, Sendable {
    /// Time since the recording started (its first file's first frame, also in a later
    /// segment's result).
    public var time: Duration
    /// The orientation the output was turned to.
    public var orientation: VideoOrientation
}
