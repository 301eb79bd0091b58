/// An error from capturing a photo, naming the output and the step.
public struct PhotoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of photo failure. New kinds may be added; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// The output is not part of a running session with a video input, the session stopped,
        /// or its video input ended or was lost before a frame arrived.
        public static let notConnected = Code("notConnected")
        /// No frame arrived within the output's frame timeout (`PhotoOutput.frameTimeout`).
        public static let timedOut = Code("timedOut")
        /// The settings were out of range, or libturbojpeg could not compress the frame.
        public static let encodingFailed = Code("encodingFailed")
        /// The file exists and overwriting was not allowed.
        public static let fileExists = Code("fileExists")
        /// The file could not be created or written.
        public static let fileError = Code("fileError")
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence that names the output and the step that failed, and what to do where it can.
    public let message: String

    /// Creates an error of the given kind.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence that names the output and the step that failed.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A textual representation of the error: its ``message``.
    public var description: String { message }
}
