import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// A registration for angle callbacks; ``cancel()`` ends it.
public final class RotationObservation: Sendable {
    private let onCancel: LockedValue<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = LockedValue(onCancel) }

    /// Stops the callbacks. Safe to call more than once.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
