/// Why the RTSP server could not start.
public struct RTSPServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// The address cannot be listened on: not an address, in use, or not this machine's.
        public static let cannotListen = Code("cannotListen")
        /// A setting was refused, such as an address other than loopback without credentials.
        public static let invalidSettings = Code("invalidSettings")
        /// The credentials cannot be used: their file is missing, readable by others, or not
        /// one `user:password` line.
        public static let invalidCredentials = Code("invalidCredentials")
        /// GStreamer's RTSP server or one of its plugins could not be opened.
        public static let libraryMissing = Code("libraryMissing")
    }

    /// The kind of failure. New kinds may be added; compare with the static members.
    public let code: Code
    /// A sentence that names the object and the step, and says what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
