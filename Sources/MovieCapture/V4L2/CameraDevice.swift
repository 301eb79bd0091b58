import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// A V4L2 capture device found by ``V4L2Camera/devices()``.
public struct CameraDevice: Hashable, Sendable, CustomStringConvertible {
    /// The device node, such as /dev/video0.
    public var path: String
    /// The driver's name, such as `uvcvideo` or `vivid`.
    public var driver: String
    /// The card name, such as "vivid" or a webcam's model.
    public var name: String
    /// Where the device is attached, as the driver reports it, such as `usb-0000:00:14.0-1`.
    public var busInfo: String
    /// The pixel formats the device offers, with their sizes and frame rates.
    public var formats: [CameraFormat]

    /// A textual representation of the device: its path, name, driver and bus, then one line per
    /// format.
    public var description: String {
        "\(path): \(name) (driver \(driver), \(busInfo))\n" + formats.map { "    " + $0.description }.joined(separator: "\n")
    }
}
