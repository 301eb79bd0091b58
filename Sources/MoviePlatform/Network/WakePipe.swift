#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose read end a thread blocked in `poll` watches next to its socket, so another
/// thread can wake it (to stop) without waiting for the socket or a timeout.
package final class WakePipe: @unchecked Sendable {
    // @unchecked: the descriptors never change after `init`; `wake()` only writes one byte.
    /// The end to poll for `POLLIN`.
    package let readEnd: Int32
    private let writeEnd: Int32

    /// Creates the pipe.
    /// - Throws: ``NetworkError`` when the system has no descriptors left.
    package init() throws(NetworkError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw NetworkError("creating a wake-up pipe", errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Wakes the poller; it stays woken until ``drain()``.
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Takes back the wake-ups so far.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}

/// A network operation that failed: what was being done and the system's reason.
package struct NetworkError: Error, CustomStringConvertible {
    package var description: String

    package init(_ step: String, errno code: Int32) {
        description = "\(step): \(String(cString: strerror(code)))"
    }

    package init(_ message: String) { description = message }
}
