/// Why the live view could not start or serve.
public struct LiveViewError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// The address cannot be listened on: not an address, in use, or not this machine's.
        public static let cannotListen = Code("cannotListen")
        /// A setting was refused, such as an address other than loopback without an access
        /// token, or a directory that cannot be written.
        public static let invalidSettings = Code("invalidSettings")
        /// A library the live view needs (libmicrohttpd) could not be opened.
        public static let libraryMissing = Code("libraryMissing")
        /// Writing the HLS directory failed.
        public static let fileError = Code("fileError")
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
