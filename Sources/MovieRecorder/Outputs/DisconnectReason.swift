import Synchronization
import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// Why a session stops handing an output media.
enum DisconnectReason: Sendable {
    /// The session stopped running, or could not start.
    case sessionStopped
    /// The output was removed from the session.
    case removed
    /// The session's inputs changed; the output is connected again to the new ones.
    case inputsChanged
}
