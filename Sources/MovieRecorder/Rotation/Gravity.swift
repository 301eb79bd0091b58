/// The acceleration a device measures at rest — the reaction to gravity — in the device's own
/// frame, in m/s².
///
/// The frame is the Linux IIO one (Documentation/ABI/testing/sysfs-bus-iio, `mount_matrix`):
/// with the device upright in its natural orientation and its screen facing you, x points right,
/// y points up and z points out of the screen towards you. Upright at rest, y ≈ +9.81.
public struct GravityVector: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Standard gravity.
    public static let standardGravity = 9.80665

    /// The reading of a device at rest rotated `degrees` clockwise (0, 90, 180, 270) from upright,
    /// standing on its edge.
    public static func upright(rotatedClockwise degrees: Int) -> GravityVector {
        let g = standardGravity
        switch ((degrees % 360) + 360) % 360 {
        case 90: return GravityVector(x: -g, y: 0, z: 0)
        case 180: return GravityVector(x: 0, y: -g, z: 0)
        case 270: return GravityVector(x: g, y: 0, z: 0)
        default: return GravityVector(x: 0, y: g, z: 0)
        }
    }

    /// Lying flat, screen up.
    public static let faceUp = GravityVector(x: 0, y: 0, z: standardGravity)
    /// Lying flat, screen down.
    public static let faceDown = GravityVector(x: 0, y: 0, z: -standardGravity)

    public var description: String { "(\(x), \(y), \(z)) m/s²" }
}

/// A source of the device's gravity vector: the Linux IIO accelerometer, or a manual source an
/// application or test sets.
///
/// A source reports on a thread of its own (or the caller's, for a manual source), in order.
public protocol GravitySource: AnyObject, Sendable {
    /// The latest reading, or `nil` before the first.
    var currentGravity: GravityVector? { get }
    /// Starts reporting readings to `handler`; readings arrive in order.
    func start(handler: @escaping @Sendable (GravityVector) -> Void) throws
    /// Stops reporting and waits for the reporting thread to end.
    func stop()
}

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

    public var position: Position
    /// The clockwise rotation, in degrees (0, 90, 180, 270), that makes a picture from this sensor
    /// upright when the device is upright. V4L2's `V4L2_CID_CAMERA_SENSOR_ROTATION` states the
    /// correction counter-clockwise, so a driver value of 90 is 270 here.
    public var sensorRotation: Int
    /// A Boolean value that indicates whether the camera turns with the device whose gravity is
    /// read. True for built-in front and back cameras; an external camera does not, unless it is
    /// fixed to the device (set it to true then).
    public var followsDeviceGravity: Bool

    public init(position: Position, sensorRotation: Int = 0, followsDeviceGravity: Bool? = nil) {
        self.position = position
        self.sensorRotation = ((sensorRotation % 360) + 360) % 360
        self.followsDeviceGravity = followsDeviceGravity ?? (position != .external)
    }

    /// A camera whose driver reports nothing: external, upright sensor.
    public static let unknown = CameraMounting(position: .external)

    public var description: String {
        "\(position) camera, sensor corrected by \(sensorRotation)° clockwise" + (followsDeviceGravity ? "" : ", not turning with the device")
    }
}
