import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A fixed set of equally sized buffers that frames borrow and give back when released.
///
/// When every buffer is out — the consumers are behind — ``lease()`` returns `nil` and the
/// source drops that frame and counts it: memory never grows.
package final class PixelBufferPool: Sendable {
    package let bufferSize: Int
    private let free: LockedValue<[UnsafeMutableRawPointerBox]>
    private let all: [UnsafeMutableRawPointerBox]
    /// Woken when a buffer comes back.
    package let released = WakeSignal()

    /// A buffer on loan; it goes back to the pool when the last frame holding it is released.
    package final class Lease: Sendable {
        let pointer: UnsafeMutableRawPointerBox
        private let pool: PixelBufferPool
        init(_ pointer: UnsafeMutableRawPointerBox, pool: PixelBufferPool) {
            self.pointer = pointer
            self.pool = pool
        }
        deinit {
            pool.free.withLock { $0.append(pointer) }
            pool.released.wake()
        }
        package var base: UnsafeMutableRawPointer { pointer.pointer }
    }

    package init(bufferSize: Int, count: Int) {
        self.bufferSize = bufferSize
        let buffers = (0..<count).map { _ in
            UnsafeMutableRawPointerBox(UnsafeMutableRawPointer.allocate(byteCount: max(1, bufferSize), alignment: 64))
        }
        all = buffers
        free = LockedValue(buffers)
    }

    deinit {
        // Leases hold the pool, so every buffer is back by now.
        for box in all { box.pointer.deallocate() }
    }

    /// Borrows a buffer, or `nil` when all are in use.
    package func lease() -> Lease? {
        guard let box = free.withLock({ $0.popLast() }) else { return nil }
        return Lease(box, pool: self)
    }
}
