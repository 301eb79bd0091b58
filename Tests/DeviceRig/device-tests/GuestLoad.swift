#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Busy loops inside the guest, one per emulated CPU at the recorder's priority, so its capture
/// threads wake late as on a starved board; the click player is raised above them (see
/// ``ClickPlayer``), so what it plays stays true time.
final class GuestLoad: Sendable {
    private final class Flag: Sendable {
        let stopRequested = Atomic<Bool>(false)
    }
    private let flag = Flag()
    private let threads: [UnsafeTransferBox<pthread_t>]

    /// Starts `count` busy threads.
    init(threads count: Int) {
        threads = (0..<count).map { [flag] _ in
            UnsafeTransferBox(startThread {
                while !flag.stopRequested.load(ordering: .relaxed) {}
            })
        }
    }

    /// Ends the loops and waits for their threads; a second call does nothing.
    func stop() {
        guard !flag.stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for thread in threads { pthread_join(thread.value, nil) }
    }
}
