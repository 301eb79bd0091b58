import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// An error from a capture device — camera or microphone — that says which device, what step
/// failed, and what to do about it.
public struct DeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on. New kinds may be added; compare with the static
    /// members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }

        /// No such device (ENOENT, ENODEV at open; an unknown ALSA name).
        public static let notFound = Code("notFound")
        /// Not allowed to open it (EACCES, EPERM).
        public static let permissionDenied = Code("permissionDenied")
        /// Another process is using it (EBUSY).
        public static let busy = Code("busy")
        /// It is not a device of the needed kind, such as a metadata-only V4L2 node.
        public static let notSupported = Code("notSupported")
        /// It cannot capture the requested size, rate or sample format.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// It disappeared while in use (ENODEV mid-stream).
        public static let lost = Code("lost")
        /// A system library it needs (libv4l2, libv4lconvert, libasound) is not installed.
        public static let libraryMissing = Code("libraryMissing")
        /// Any other failure the driver reported.
        public static let failed = Code("failed")
    }

    /// The kind of failure.
    public let code: Code
    /// The device: a path such as /dev/video0, or an ALSA name such as hw:1,0.
    public let device: String
    /// What was being done: "opening", "setting the format"…
    public let step: String
    /// The full message.
    public let message: String

    /// Creates an error whose message names the device and the step.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - device: The device path or ALSA name.
    ///   - step: What was being done, such as "opening".
    ///   - detail: What went wrong and what to do about it.
    public init(_ code: Code, device: String, step: String, detail: String) {
        self.code = code
        self.device = device
        self.step = step
        message = "\(device): \(step) failed: \(detail)"
    }

    /// Maps an `errno` from a V4L2 call to an error with advice.
    package static func v4l2(_ errnoValue: Int32, device: String, step: String) -> DeviceError {
        let reason = String(cString: strerror(errnoValue))
        switch errnoValue {
        case ENOENT:
            return DeviceError(.notFound, device: device, step: step, detail: "\(reason) — check the path; `movrec devices` lists the cameras")
        case ENODEV, ENXIO:
            return DeviceError(step == "opening" ? .notFound : .lost, device: device, step: step,
                               detail: "\(reason) — the device is gone; reconnect it")
        case EACCES, EPERM:
            return DeviceError(.permissionDenied, device: device, step: step,
                               detail: "\(reason) — add the user to the 'video' group (sudo usermod -aG video $USER, then log in again)")
        case EBUSY:
            return DeviceError(.busy, device: device, step: step,
                               detail: "\(reason) — the camera is in use by another process; close it (`fuser \(device)` shows which)")
        default:
            return DeviceError(.failed, device: device, step: step, detail: reason)
        }
    }

    /// A textual representation of the error: its full message.
    public var description: String { message }
}
