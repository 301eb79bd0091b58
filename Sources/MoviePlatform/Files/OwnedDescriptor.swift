#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor with one owner that closes it. Operations borrow it for the length of a
/// system call; ``close()`` marks it closed, waits for the borrows under way to end, then
/// closes it. So no thread ever passes a descriptor number that was closed, and perhaps reused
/// for another file, to the system: a call after the close gets ``isClosed`` instead.
package final class OwnedDescriptor: @unchecked Sendable {
    // @unchecked: `borrowers` and `closed` are guarded by `lock`; `number` never changes.
    private let lock = ConditionLock()
    private let number: Int32
    private var borrowers = 0
    private var closed = false

    /// Takes ownership of `number`, an open descriptor.
    package init(_ number: Int32) { self.number = number }

    /// A Boolean value that indicates whether ``close()`` has been called.
    package var isClosed: Bool { lock.withLock { closed } }

    /// Runs `body` with the descriptor, which stays open until `body` returns.
    /// - Returns: What `body` returns, or `nil` when the descriptor is closed.
    package func borrow<Result>(_ body: (Int32) throws -> Result) rethrows -> Result? {
        let open = lock.withLock {
            guard !closed else { return false }
            borrowers += 1
            return true
        }
        guard open else { return nil }
        defer {
            lock.withLock {
                borrowers -= 1
                if borrowers == 0 { lock.broadcast() }
            }
        }
        return try body(number)
    }

    /// Closes the descriptor once the borrows under way have ended; later calls do nothing.
    /// - Returns: `errno` when the system reported an error closing it, else `nil`.
    package func close() -> Int32? {
        let first: Bool = lock.withLock {
            guard !closed else { return false }
            closed = true
            while borrowers > 0 { lock.wait() }
            return true
        }
        guard first else { return nil }
        // Not retried: Linux releases the descriptor even when close is interrupted.
        return Glibc.close(number) == 0 || errno == EINTR ? nil : errno
    }

    deinit {
        // The last reference is gone, so nothing borrows it: a file its owner forgot to close.
        if !closed { Glibc.close(number) }
    }
}
