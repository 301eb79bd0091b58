import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// An error from a gravity source, naming the device directory, the sysfs file, what is wrong
/// and what to do about it.
public struct GravitySourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public enum Code: Hashable, Sendable {
        /// No such device directory, or no IIO device with an accelerometer (or with the
        /// requested name).
        case notFound
        /// A file the reading needs is missing: an axis's `_raw` file, or any scale file.
        case missingFile
        /// A file exists but cannot be read: permissions, or an error from the driver.
        case unreadable
        /// A file does not hold a finite number.
        case malformed
        /// The mount matrix is not nine numbers in three rows, or it is singular.
        case invalidMountMatrix
        /// ``GravitySource/start(handler:)`` was called while the source was reporting.
        case alreadyRunning
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

    public var description: String { message }
}
