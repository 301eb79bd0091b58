import Synchronization
import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// The internal side of an output: how a session hands it media. Called on capture threads;
/// implementations queue and return promptly.
protocol MediaReceiver: AnyObject, Sendable {
    /// The session the output belongs to.
    var sessionClaim: SessionClaim { get }
    /// The session started (or reconfigured) with these sources.
    func connect(_ sources: SourceDescription)
    /// No more media follows, for `reason`.
    func disconnect(_ reason: DisconnectReason)
    /// Returns when what the last disconnect ended has finished (a recording is finalized).
    func finishDisconnecting() async
    func receive(_ event: VideoSourceEvent)
    func receive(_ event: AudioSourceEvent)
    /// A Boolean value that indicates whether the output is using media now (a recording is
    /// in progress). File sources wait until some output is, so a file is not read to its end
    /// before anyone records it.
    var isConsumingMedia: Bool { get }
}
