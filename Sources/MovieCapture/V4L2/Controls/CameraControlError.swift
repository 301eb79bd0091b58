/// A camera control that could not be read or set: which control, what was asked and what
/// the driver allows.
public struct CameraControlError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can act on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in source.
        public var description: String { name }
        /// The camera has no control of that name or ID.
        public static let notFound = Code("notFound")
        /// The value is outside the control's range or not one of its steps or menu entries.
        public static let outOfRange = Code("outOfRange")
        /// The control cannot be set (read-only, or held by streaming).
        public static let readOnly = Code("readOnly")
        /// Another part of the program holds the camera's configuration lock.
        public static let locked = Code("locked")
        /// The configuration lock was given up before this call.
        public static let notLocked = Code("notLocked")
        /// The driver refused for another reason.
        public static let failed = Code("failed")
    }

    /// The kind of failure.
    public let code: Code
    /// The device path.
    public let device: String
    /// The control's key, such as `brightness`, or empty when the failure concerns no one control.
    public let control: String
    /// The full message.
    public let message: String

    /// Creates an error whose message names the device, the control and what to do.
    public init(_ code: Code, device: String, control: String, _ detail: String) {
        self.code = code
        self.device = device
        self.control = control
        message = "\(device): " + (control.isEmpty ? "" : "control \(control): ") + detail
    }

    /// A textual representation of the error: its full message.
    public var description: String { message }
}
