import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// Whether a started source is live, and whether its session has let it go.
final class SourceGate: Sendable {
    let live: Bool
    private let halted = Atomic<Bool>(false)
    init(live: Bool) { self.live = live }
    func halt() { halted.store(true, ordering: .releasing) }
    var isHalted: Bool { halted.load(ordering: .acquiring) }
}
