import Synchronization
import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// Which session an output belongs to: an output serves one session at a time, as in
/// AVFoundation. The session is held weakly, so an output whose session is gone is free again.
final class SessionClaim: Sendable {
    private let owner = LockedValue<WeakSession>(WeakSession())

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
