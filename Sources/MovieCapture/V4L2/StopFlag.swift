import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CV4L2

/// A flag one thread sets and another polls.
package final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    package func set() { value.store(true, ordering: .releasing) }
    package var isSet: Bool { value.load(ordering: .acquiring) }
}
