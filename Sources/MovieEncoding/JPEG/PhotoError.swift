/// An error from capturing a photo, naming the output and the step.
public struct PhotoError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Hashable, Sendable {
        /// The output is not part of a running session with a video input, the session stopped,
        /// or its video input ended or was lost before a frame arrived.
        case notConnected
        /// No frame arrived within ``PhotoOutput/frameTimeout``.
        case timedOut
        /// The settings were out of range, or libturbojpeg could not compress the frame.
        case encodingFailed
        /// The file exists and overwriting was not allowed.
        case fileExists
        /// The file could not be created or written.
        case fileError
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
