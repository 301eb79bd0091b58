import MovieContainer
import MoviePlatform
import MovieCapture

/// An error from a video encoder: bad settings, libx264 or libx265 failing, or a hardware
/// encoder's device refusing or failing a step.
public struct EncoderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on. New kinds may be added; compare with the static
    /// members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// A setting the encoder refused, a library it needs is missing, or it failed.
        public static let failed = Code("failed")
        /// The device node does not exist, or is not a memory-to-memory encoder.
        public static let deviceNotFound = Code("deviceNotFound")
        /// The device is a hardware encoder but refused the codec, the picture format, the size
        /// or a control this recording needs.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The device was removed or stopped answering while it encoded.
        public static let deviceLost = Code("deviceLost")
    }

    /// What kind of failure it was; ``Code/failed`` for the software encoders' errors.
    public let code: Code
    /// A sentence that names the setting or the encoder library's step that failed, and what to use instead
    /// where it can.
    public let message: String
    /// A textual representation of the error: its ``message``.
    public var description: String { message }

    init(message: String) {
        code = .failed
        self.message = message
    }

    init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }
}
