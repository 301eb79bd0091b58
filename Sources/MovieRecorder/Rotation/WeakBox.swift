import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// A weak reference that can cross threads.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    // @unchecked: set once right after creation, before any reading thread can see it.
    weak var value: T?
}
