/// A change to a camera control, made by this program, another process or the driver itself.
public struct CameraControlChange: Hashable, Sendable {
    /// The control.
    public var id: CameraControlID
    /// The control's key, such as `brightness`.
    public var key: String
    /// The new value, when the value changed.
    public var value: Int64?
    /// Whether the control's flags changed (it became inactive or active, grabbed or free).
    public var flagsChanged: Bool
    /// Whether the control's range changed.
    public var rangeChanged: Bool
}
