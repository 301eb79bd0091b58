/// Where a camera sits and how its sensor is mounted — what V4L2 reports as
/// `V4L2_CID_CAMERA_ORIENTATION` and `V4L2_CID_CAMERA_SENSOR_ROTATION`, or what the application
/// knows for a camera that does not report it.
public struct CameraMounting: Hashable, Sendable, CustomStringConvertible {
    /// Which way the camera looks.
    public enum Position: Hashable, Sendable {
        /// Towards the user, on the screen side (`V4L2_CAMERA_ORIENTATION_FRONT`).
        case front
        /// Away from the user (`V4L2_CAMERA_ORIENTATION_BACK`).
        case back
        /// Not part of the device (`V4L2_CAMERA_ORIENTATION_EXTERNAL`), such as a USB webcam.
        case external
    }

    /// Which way the camera looks.
    public var position: Position
    /// The clockwise rotation, in degrees (0, 90, 180, 270), that makes a picture from this sensor
    /// upright when the device is upright. V4L2's `V4L2_CID_CAMERA_SENSOR_ROTATION` states the
    /// correction counter-clockwise, so a driver value of 90 is 270 here.
    public var sensorRotation: Int
    /// A Boolean value that indicates whether the camera turns with the device whose gravity is
    /// read. True for built-in front and back cameras; an external camera does not, unless it is
    /// fixed to the device (set it to true then).
    public var followsDeviceGravity: Bool

    /// Creates a mounting.
    /// - Parameters:
    ///   - position: Which way the camera looks.
    ///   - sensorRotation: The clockwise rotation, in degrees, that makes the sensor's picture
    ///     upright; any multiple of 360 is taken off.
    ///   - followsDeviceGravity: Whether the camera turns with the device; `nil` for `true`,
    ///     except for an external camera.
    public init(position: Position, sensorRotation: Int = 0, followsDeviceGravity: Bool? = nil) {
        self.position = position
        self.sensorRotation = ((sensorRotation % 360) + 360) % 360
        self.followsDeviceGravity = followsDeviceGravity ?? (position != .external)
    }

    /// A camera whose driver reports nothing: external, upright sensor.
    public static let unknown = CameraMounting(position: .external)

    /// A textual representation of the mounting: the position, the sensor's correction and
    /// whether the camera turns with the device.
    public var description: String {
        "\(position) camera, sensor corrected by \(sensorRotation)° clockwise" + (followsDeviceGravity ? "" : ", not turning with the device")
    }
}
