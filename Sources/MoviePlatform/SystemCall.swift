#if canImport(Glibc)
import Glibc
#endif

/// A system error number (`errno`) as a typed value.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The number, such as `ENOENT`.
    package let rawValue: Int32

    /// Wraps `rawValue`.
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The system's words for the number (`strerror`).
    package var description: String { String(cString: strerror(rawValue)) }
}

/// The one place system calls are retried after a signal interrupts them.
///
/// Each function runs a call that reports failure with a negative result and `errno`, runs it
/// again while that is `EINTR`, and returns the result or the typed ``Errno``. `close` is not
/// one of them: Linux releases the descriptor even when `close` is interrupted.
package enum SystemCall {
    /// Runs `call` until it succeeds or fails with something other than `EINTR`.
    @inline(__always)
    package static func retrying<Value: BinaryInteger>(_ call: () -> Value) -> Result<Value, Errno> {
        while true {
            let value = call()
            if value >= 0 { return .success(value) }
            let number = errno
            if number != EINTR { return .failure(Errno(number)) }
        }
    }
}

extension Result where Failure == Errno {
    /// The call's result, or the error `describe` makes of its ``Errno``.
    @inline(__always)
    package func get<Described: Error>(or describe: (Errno) -> Described) throws(Described) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let number): throw describe(number)
        }
    }
}
