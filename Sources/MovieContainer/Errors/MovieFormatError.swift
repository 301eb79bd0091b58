/// An error that describes bytes that do not form a valid movie, atom or bitstream.
///
/// The message names the atom (or parameter set) and what was wrong with it, and cites the
/// part of the QuickTime File Format it breaks where that helps. Compare ``code`` to tell
/// kinds of failure apart.
public struct MovieFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of format failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// An atom ends before a field that its type requires.
        public static let truncatedAtom = Code("truncatedAtom")
        /// An atom's size field is smaller than its header or runs past its parent or the file.
        public static let invalidAtomSize = Code("invalidAtomSize")
        /// A table claims more entries than its atom holds.
        public static let tableLargerThanAtom = Code("tableLargerThanAtom")
        /// An atom would not fit the 32-bit size field this writer uses for it.
        public static let atomTooLarge = Code("atomTooLarge")
        /// A required atom is missing.
        public static let missingAtom = Code("missingAtom")
        /// The atom tree is nested deeper, or holds more atoms, than any real movie does.
        public static let treeTooLarge = Code("treeTooLarge")
        /// A field holds a value the format does not allow.
        public static let invalidValue = Code("invalidValue")
        /// An H.264 or HEVC parameter set or slice header could not be parsed.
        public static let invalidBitstream = Code("invalidBitstream")
    }

    /// The kind of failure.
    public let code: Code
    /// The atom (or for bitstreams, the NAL unit kind) that was being read or written.
    public let atom: FourCC?
    /// A sentence that names the object and the step, and says what to do where it can.
    public let message: String

    /// Creates an error of the given kind.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - atom: The atom (or NAL unit kind) being read or written, or `nil` when there is none.
    ///   - message: A sentence that names the object and the step.
    public init(code: Code, atom: FourCC?, message: String) {
        self.code = code
        self.atom = atom
        self.message = message
    }

    /// A textual representation of the error: its ``message``.
    public var description: String { message }

    static func truncatedAtom(_ atom: FourCC, needed: Int, available: Int) -> Self {
        Self(code: .truncatedAtom, atom: atom,
             message: "'\(atom)' atom is truncated: reading it needed \(needed) more bytes but only \(available) remain")
    }

    static func tableLargerThanAtom(_ atom: FourCC, entries: UInt32, available: Int) -> Self {
        Self(code: .tableLargerThanAtom, atom: atom,
             message: "'\(atom)' atom claims \(entries) table entries but holds only \(available) bytes for them")
    }

    static func atomTooLarge(_ atom: FourCC, size: UInt64) -> Self {
        Self(code: .atomTooLarge, atom: atom,
             message: "'\(atom)' atom would be \(size) bytes, more than its 32-bit size field can hold")
    }

    static func invalidValue(_ atom: FourCC, _ what: String) -> Self {
        Self(code: .invalidValue, atom: atom, message: "'\(atom)' atom: \(what)")
    }

    static func missingAtom(_ atom: FourCC, in parent: String) -> Self {
        Self(code: .missingAtom, atom: atom, message: "\(parent) has no '\(atom)' atom, which QuickTime requires there")
    }

    static func invalidBitstream(_ what: String, codec: String = "H.264") -> Self {
        Self(code: .invalidBitstream, atom: nil, message: "\(codec) bitstream: \(what)")
    }
}
