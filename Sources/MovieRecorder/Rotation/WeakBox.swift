import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// A weak reference that can cross threads: read and written under a lock, so a reader on
/// another thread may see `nil` before the value is set, never a torn reference.
final class WeakBox<T: AnyObject>: Sendable {
    private struct Reference: @unchecked Sendable {
        // @unchecked: only read and written under `reference`'s mutex.
        weak var value: T?
    }

    private let reference = LockedValue(Reference())

    init(_ value: T? = nil) { reference.withLock { $0.value = value } }

    /// The object, or `nil` once it is gone (or before it is set).
    var value: T? {
        get { reference.withLock { $0.value } }
        set { reference.withLock { $0.value = newValue } }
    }
}
