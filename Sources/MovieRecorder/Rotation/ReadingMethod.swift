/// How an ``IIOAccelerometer``'s readings reach its handler.
public enum ReadingMethod: Sendable, Hashable, CustomStringConvertible {
    /// Whole samples from the IIO buffer's character device, such as `/dev/iio:device0`, every
    /// axis from one instant, at the device's rate.
    case buffer(device: String)
    /// The sysfs `_raw` files, every polling interval; `reason` says why the buffer is not read.
    case polling(reason: String)

    /// A phrase such as "the buffer /dev/iio:device0" or "polling (the driver offers no buffer)".
    public var description: String {
        switch self {
        case .buffer(let device): "the buffer \(device)"
        case .polling(let reason): "polling (\(reason))"
        }
    }
}
