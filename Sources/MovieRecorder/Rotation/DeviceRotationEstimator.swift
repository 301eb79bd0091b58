import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif

/// Turns gravity readings into the device's rotation from upright — 0, 90, 180 or 270 degrees
/// clockwise — steadily: it does not flap between two rotations near their boundary, and it
/// keeps the last rotation while the device lies flat.
///
/// The angle is that of gravity in the screen's plane, `atan2(−x, y)` in degrees from 0 up to
/// 360: 0 upright, 90 a quarter turn clockwise so that the top points right (x ≈ −g). A first
/// reading snaps to the nearest quarter turn. After that the rotation changes only when the
/// angle is more than 45° + ``hysteresis`` from the current quarter's centre: with the default
/// 15°, turning from upright switches to 90 past 60° and turning back switches to 0 below 30°.
///
/// A reading says nothing about the rotation when the device lies face up or face down, or
/// nearly: when gravity in the screen's plane is weaker than ``minimumInPlaneGravity``, or the
/// screen is tilted more than ``maximumTilt`` from vertical. Such readings (and readings with a
/// NaN or infinite component) keep the current rotation, which is `nil` until the first reading
/// that does say something. iio-sensor-proxy decides likewise from the previous orientation,
/// with a threshold of its own on each axis.
package struct DeviceRotationEstimator: Hashable, Sendable {
    /// The degrees beyond 45 by which the angle must leave the current quarter turn before the
    /// rotation changes: from 0 up to, not including, 45.
    package let hysteresis: Double
    /// The in-plane gravity, in m/s², below which a reading is too flat to tell the rotation.
    package let minimumInPlaneGravity: Double
    /// The tilt of the screen from vertical, in degrees, beyond which a reading is too flat to
    /// tell the rotation.
    package let maximumTilt: Double

    /// The current rotation clockwise from upright (0, 90, 180 or 270), or `nil` before the
    /// first reading that tells it.
    package private(set) var rotation: Int?

    /// Creates an estimator that knows no rotation yet.
    /// - Parameters:
    ///   - hysteresis: Degrees beyond 45 the angle must move past before the rotation changes;
    ///     0 ≤ hysteresis < 45.
    ///   - minimumInPlaneGravity: The gravity in the screen's plane, in m/s², below which a
    ///     reading is ignored; 0.35 g by default, about 70° of tilt at rest.
    ///   - maximumTilt: The tilt from vertical, in degrees, beyond which a reading is ignored.
    package init(hysteresis: Double = 15, minimumInPlaneGravity: Double = 0.35 * GravityVector.standardGravity,
                maximumTilt: Double = 65) {
        precondition(hysteresis >= 0 && hysteresis < 45, "hysteresis must be from 0 up to 45 degrees, not \(hysteresis)")
        precondition(minimumInPlaneGravity >= 0, "minimum in-plane gravity must not be negative")
        precondition(maximumTilt > 0 && maximumTilt <= 90, "maximum tilt must be above 0 and at most 90 degrees")
        self.hysteresis = hysteresis
        self.minimumInPlaneGravity = minimumInPlaneGravity
        self.maximumTilt = maximumTilt
    }

    /// Takes a reading into account.
    /// - Returns: The rotation after it: 0, 90, 180 or 270, or `nil` when no reading so far has
    ///   told it.
    package mutating func update(_ g: GravityVector) -> Int? {
        guard let angle = Self.clockwiseAngle(of: g, minimumInPlaneGravity: minimumInPlaneGravity, maximumTilt: maximumTilt) else {
            return rotation
        }
        let nearest = Self.nearestQuarter(angle)
        if let current = rotation {
            // The boundary itself keeps the rotation; so does rounding error of the angle.
            if Self.distance(angle, Double(current)) > 45 + hysteresis + 1e-9 { rotation = nearest }
        } else {
            rotation = nearest
        }
        return rotation
    }

    /// The angle of gravity in the screen's plane, clockwise from upright, in degrees from 0
    /// up to 360: `atan2(−x, y)`.
    package static func clockwiseAngle(of g: GravityVector) -> Double {
        var degrees = atan2(-g.x, g.y) * 180 / Double.pi
        if degrees < 0 { degrees += 360 }
        return degrees >= 360 ? 0 : degrees
    }

    /// The angle, or `nil` when the reading is too flat (or not finite) to tell it.
    static func clockwiseAngle(of g: GravityVector, minimumInPlaneGravity: Double, maximumTilt: Double) -> Double? {
        guard g.x.isFinite, g.y.isFinite, g.z.isFinite else { return nil }
        let inPlane = (g.x * g.x + g.y * g.y).squareRoot()
        guard inPlane >= minimumInPlaneGravity, inPlane > 0 else { return nil }
        let tilt = atan2(abs(g.z), inPlane) * 180 / Double.pi
        guard tilt <= maximumTilt else { return nil }
        return clockwiseAngle(of: g)
    }

    /// The quarter turn (0, 90, 180 or 270) nearest `angle`, which is in 0..<360.
    static func nearestQuarter(_ angle: Double) -> Int {
        Int((angle / 90).rounded()) % 4 * 90
    }

    /// The angle between two directions, in degrees from 0 to 180.
    static func distance(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }
}
