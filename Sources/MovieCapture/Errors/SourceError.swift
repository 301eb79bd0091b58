import MovieContainer
import MoviePlatform
/// An error from creating or starting a capture source, naming the source, the step and what to
/// do about it.
///
/// Failures to open or read a file are reported as `FileError`; failures after a source has
/// started arrive as ``VideoSourceEvent/interrupted(_:)`` or ``AudioSourceEvent/interrupted(_:)``.
public struct SourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// A parameter is out of range: a size, a rate, an amplitude.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A file describes media this library does not read, such as interlaced or 4:2:2 video.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// A file's header cannot be parsed.
        public static let malformedFile = Code("malformedFile")
        /// ``VideoSource/start(handler:)`` or ``AudioSource/start(handler:)`` was called while
        /// the source was capturing.
        public static let alreadyRunning = Code("alreadyRunning")
    }

    /// The kind of failure.
    public let code: Code
    /// The source's name: "test pattern", "tone", or a file's path.
    public let source: String
    /// What was being done: "creating", "reading the header", "starting".
    public let step: String
    /// What is wrong and what to do, in words a user can act on.
    public let message: String

    package init(_ code: Code, source: String, step: String, _ message: String) {
        self.code = code
        self.source = source
        self.step = step
        self.message = message
    }

    /// A textual representation of the error: the source, the step that failed and the message.
    public var description: String { "\(source): \(step) failed: \(message)" }
}
