import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An error from configuring, starting or running a capture session.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// The configuration cannot hold that input or output.
        public static let cannotAdd = Code("cannotAdd")
        /// A source could not start: the device is missing, busy, refuses the format…
        public static let sourceFailed = Code("sourceFailed")
        /// Starting a session with no inputs.
        public static let noInputs = Code("noInputs")
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence that says what failed and what to do.
    public let message: String
    /// The source's own error, such as a `DeviceError` saying the camera is busy.
    public let underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence that says what failed and what to do.
    ///   - underlying: The source's own error, if any.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// A textual representation of the error: its message.
    public var description: String { message }

    /// Two errors are equal when their codes and messages are; the underlying errors are not
    /// compared.
    public static func == (l: Self, r: Self) -> Bool { l.code == r.code && l.message == r.message }
    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
