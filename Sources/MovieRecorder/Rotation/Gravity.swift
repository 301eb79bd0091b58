import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// The acceleration a device measures at rest — the reaction to gravity — in the device's own
/// frame, in m/s².
///
/// The frame is the Linux IIO one (Documentation/ABI/testing/sysfs-bus-iio, `mount_matrix`):
/// with the device upright in its natural orientation and its screen facing you, x points right,
/// y points up and z points out of the screen towards you. Upright at rest, y ≈ +9.81.
public struct GravityVector: Hashable, Sendable, CustomStringConvertible {
    /// The acceleration along the x-axis, which points right, in m/s².
    public var x: Double
    /// The acceleration along the y-axis, which points up, in m/s².
    public var y: Double
    /// The acceleration along the z-axis, which points out of the screen, in m/s².
    public var z: Double

    /// Creates a reading from its components along the device's axes, in m/s².
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

    /// A textual representation of the vector, such as `(0.0, 9.81, 0.0) m/s²`.
    public var description: String { "(\(x), \(y), \(z)) m/s²" }
}
