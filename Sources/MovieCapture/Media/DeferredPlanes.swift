import Synchronization

/// I420 planes made on first use from a picture in another layout, once, whoever asks first;
/// the memory they lie in lives as long as this.
final class DeferredPlanes: Sendable {
    private let make: @Sendable () -> (planes: [PlaneView], memory: any Sendable)
    private let made = Mutex<(planes: [PlaneView], memory: any Sendable)?>(nil)

    init(_ make: @escaping @Sendable () -> (planes: [PlaneView], memory: any Sendable)) {
        self.make = make
    }

    /// The planes, made now if nobody asked before (a reader arriving meanwhile waits for them).
    var planes: [PlaneView] {
        made.withLock { made in
            if let made { return made.planes }
            let fresh = make()
            made = fresh
            return fresh.planes
        }
    }

    /// Whether the planes were made: whether anything needed the picture converted.
    var isMade: Bool { made.withLock { $0 != nil } }
}
