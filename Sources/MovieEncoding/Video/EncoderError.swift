import MovieContainer
import MoviePlatform
import MovieCapture

/// An error from a video encoder: bad settings, or libx264 or libx265 failing.
public struct EncoderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A sentence that names the setting or the encoder library's step that failed, and what to use instead
    /// where it can.
    public let message: String
    /// A textual representation of the error: its ``message``.
    public var description: String { message }
}
