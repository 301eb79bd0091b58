import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// An error from a gravity source, naming the device directory, the sysfs file, what is wrong
/// and what to do about it.
public struct GravitySourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// No such device directory, or no IIO device with an accelerometer (or with the
        /// requested name).
        public static let notFound = Code("notFound")
        /// A file the reading needs is missing: an axis's `_raw` file, or any scale file.
        public static let missingFile = Code("missingFile")
        /// A file exists but cannot be read: permissions, or an error from the driver.
        public static let unreadable = Code("unreadable")
        /// A file does not hold a finite number.
        public static let malformed = Code("malformed")
        /// The mount matrix is not nine numbers in three rows, or it is singular.
        public static let invalidMountMatrix = Code("invalidMountMatrix")
        /// ``GravitySource/start(handler:)`` was called while the source was reporting.
        public static let alreadyRunning = Code("alreadyRunning")
    }

    /// The kind of failure.
    public let code: Code
    /// The device directory, such as `/sys/bus/iio/devices/iio:device0`, or the directory searched.
    public let path: String
    /// The sysfs file inside ``path`` the failure concerns, such as `in_accel_x_raw`, if any.
    public let file: String?
    /// What is wrong and what to do, naming the path and the file.
    public let message: String

    init(_ code: Code, path: String, file: String? = nil, _ detail: String) {
        self.code = code
        self.path = path
        self.file = file
        message = (file.map { "\(path)/\($0)" } ?? path) + ": " + detail
    }

    /// A textual representation of the error: its message.
    public var description: String { message }
}
