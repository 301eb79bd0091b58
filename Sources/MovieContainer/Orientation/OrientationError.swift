

/// The error thrown for a rotation angle a movie cannot store.
public struct OrientationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The angle that was refused.
    public let angle: Double

    /// A textual representation of the error: the refused angle and the angles a movie can store.
    public var description: String {
        "rotation angle \(angle)° is not supported: use 0, 90, 180 or 270 degrees clockwise"
    }
}
