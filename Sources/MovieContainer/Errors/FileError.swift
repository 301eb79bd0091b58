/// An error from a file operation, with the path, the step and the system's `errno`.
public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// A textual representation of the code: its name as in source, such as `notFound`.
        public var description: String { name }

        /// The file or its directory does not exist (`ENOENT`).
        public static let notFound = Code("notFound")
        /// The file or directory may not be read or written (`EACCES`, `EPERM`, `EROFS`).
        public static let permissionDenied = Code("permissionDenied")
        /// A file is already at the path (`EEXIST`).
        public static let alreadyExists = Code("alreadyExists")
        /// The file system is full, or the user's quota is used up (`ENOSPC`, `EDQUOT`).
        public static let noSpace = Code("noSpace")
        /// The file would pass a size limit (`EFBIG`).
        public static let fileTooLarge = Code("fileTooLarge")
        /// The storage reported an input/output error (`EIO`).
        public static let ioError = Code("ioError")
        /// The path names a directory where a file was expected (`EISDIR`).
        public static let isDirectory = Code("isDirectory")
        /// The path names something that is not a regular file, such as a FIFO or a device.
        public static let notRegularFile = Code("notRegularFile")
        /// Any other system error; ``FileError/errno`` tells which.
        public static let other = Code("other")
    }

    /// The kind of failure. New kinds may be added; compare with the static members.
    public let code: Code
    /// The file's path.
    public let path: String
    /// What was being done: "opening for writing", "writing at byte 1234"…
    public let step: String
    /// The system error number.
    public let errno: Int32
    /// The system's words for `errno` (`strerror`).
    public let reason: String

    /// Creates an error for `step` on `path`.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - path: The file's path.
    ///   - step: What was being done.
    ///   - errno: The system error number, or 0 when there is none.
    ///   - reason: The system's words for `errno`, or what was wrong.
    public init(code: Code, path: String, step: String, errno: Int32, reason: String) {
        self.code = code
        self.path = path
        self.step = step
        self.errno = errno
        self.reason = reason
    }

    /// A sentence naming the file and the step, the system's reason, and what to do.
    public var description: String {
        let advice: String
        switch code {
        case .notFound: advice = "check the path; its directory must exist"
        case .permissionDenied: advice = "check the file's and directory's permissions"
        case .alreadyExists: advice = "choose another name, or allow overwriting"
        case .noSpace: advice = "free disk space or record to another disk"
        case .fileTooLarge: advice = "the file size limit (ulimit -f or the file system's) was reached"
        case .ioError: advice = "the storage reported a hardware or connection error"
        case .isDirectory: advice = "give a file path, not a directory"
        case .notRegularFile: advice = "give the path of a regular file"
        default: advice = ""
        }
        return "\(path): \(step) failed: \(reason)" + (advice.isEmpty ? "" : " — \(advice)")
    }
}
