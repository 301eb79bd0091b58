import Synchronization
import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// The protocol every capture output conforms to, as in Apple's AVCam: the capture service
/// applies the current rotation to each output through it.
///
/// A new output starts at angle 0, unmirrored, until a service applies the current angle.
public protocol OutputService: AnyObject, Sendable {
    /// The clockwise rotation, in degrees, applied to what the output produces: 0, 90, 180 or 270.
    var videoRotationAngle: Double { get }
    /// A Boolean value that indicates whether the output's pictures are mirrored after rotation.
    var isVideoMirrored: Bool { get }
    /// Sets the rotation applied to what the output produces next.
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    func setVideoRotationAngle(_ angle: Double) throws(OrientationError)
    /// Sets whether pictures are flipped left to right after the rotation.
    func setVideoMirrored(_ mirrored: Bool)
    /// Returns a Boolean value that indicates whether the output can apply `angle`, as
    /// `AVCaptureConnection.isVideoRotationAngleSupported(_:)` does.
    func isVideoRotationAngleSupported(_ angle: Double) -> Bool
}

extension OutputService {
    /// Returns a Boolean value that indicates whether the output can apply `angle`: `true` for
    /// 0, 90, 180 and 270, the angles a movie's track matrix, a photo's Exif orientation and a
    /// video frame's orientation can state; `false` for any other angle.
    public func isVideoRotationAngleSupported(_ angle: Double) -> Bool {
        (try? VideoOrientation(rotationAngle: angle)) != nil
    }
}

/// What a running session tells its outputs about the sources feeding them.
struct SourceDescription: Sendable {
    var video: (format: VideoFormat, isLive: Bool, name: String)?
    var audio: (format: PCMFormat, isLive: Bool, name: String)?
}

/// Why a session stops handing an output media.
enum DisconnectReason: Sendable {
    /// The session stopped running, or could not start.
    case sessionStopped
    /// The output was removed from the session.
    case removed
    /// The session's inputs changed; the output is connected again to the new ones.
    case inputsChanged
}

/// Which session an output belongs to: an output serves one session at a time, as in
/// AVFoundation. The session is held weakly, so an output whose session is gone is free again.
final class SessionClaim: Sendable {
    private let owner = Mutex<WeakSession>(WeakSession())

    private struct WeakSession: @unchecked Sendable {
        // @unchecked: a weak reference to an actor, only read and written under the mutex.
        weak var session: CaptureSession?
    }

    /// A Boolean value that indicates whether the session `sessionID` identifies may add the
    /// output: it is in no session, or already in that one.
    func isAvailable(to sessionID: ObjectIdentifier?) -> Bool {
        owner.withLock { o in o.session.map { ObjectIdentifier($0) == sessionID } ?? true }
    }

    /// Claims the output for `session`; `false` when another session has it.
    func claim(for session: CaptureSession) -> Bool {
        owner.withLock { o in
            guard o.session == nil || o.session === session else { return false }
            o.session = session
            return true
        }
    }

    /// Gives the output up, if `session` has it.
    func release(from session: CaptureSession) {
        owner.withLock { o in if o.session === session { o.session = nil } }
    }
}

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

extension MediaReceiver {
    func finishDisconnecting() async {}
}
