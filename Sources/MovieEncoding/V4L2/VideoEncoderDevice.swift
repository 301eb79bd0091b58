import MovieContainer
import MoviePlatform
import MovieCapture
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// A hardware video encoder found by ``devices()``: a V4L2 stateful memory-to-memory device
/// whose CAPTURE queue makes a compressed format, such as a Raspberry Pi 4's bcm2835-codec at
/// `/dev/video11`.
public struct VideoEncoderDevice: Hashable, Sendable, CustomStringConvertible {
    /// The device node, such as `/dev/video11`.
    public var path: String
    /// The driver's name, such as `bcm2835-codec` or `vicodec`.
    public var driver: String
    /// The card name the driver reports.
    public var name: String
    /// The compressed formats it makes, as V4L2 names them: `H264`, `HEVC`, `FWHT`…
    public var codedFormats: [V4L2PixelFormat]
    /// The picture formats it takes, such as `YU12` and `NV12`.
    public var pictureFormats: [V4L2PixelFormat]
    /// The smallest picture size it encodes, when it says.
    public var minimumSize: (width: Int, height: Int)? { sizes.map { ($0[0], $0[1]) } }
    /// The largest picture size it encodes, when it says.
    public var maximumSize: (width: Int, height: Int)? { sizes.map { ($0[2], $0[3]) } }
    /// Whether its queues use V4L2's multi-planar API (the SoC encoders do).
    public var isMultiplanar: Bool
    /// Whether it can be told to make the next picture a keyframe; without that, a keyframe
    /// for a segment or an event clip costs a drain and a reset of its stream.
    public var canForceKeyframes: Bool
    /// Smallest width and height, largest width and height.
    private var sizes: [Int]?

    /// The codecs a recording can use it for: those of ``codedFormats`` this library writes.
    public var codecs: [VideoCodecType] {
        VideoCodecType.allCases.filter { codedFormats.contains(Self.codedFormat(of: $0)) }
    }

    /// Whether it makes `codec` at `width`x`height`.
    public func encodes(_ codec: VideoCodecType, width: Int, height: Int) -> Bool {
        guard codecs.contains(codec) else { return false }
        guard let sizes else { return true }
        return (sizes[0]...sizes[2]).contains(width) && (sizes[1]...sizes[3]).contains(height)
    }

    /// A textual representation: the path, name and driver, what it makes and takes.
    public var description: String {
        let size = sizes.map { " \($0[0])x\($0[1])…\($0[2])x\($0[3])" } ?? ""
        return "\(path): \(name) (driver \(driver)) makes \(codedFormats.map(\.description).joined(separator: ", "))"
            + " from \(pictureFormats.map(\.description).joined(separator: ", "))\(size)"
            + (isMultiplanar ? ", multi-planar" : "") + (canForceKeyframes ? "" : ", no forced keyframes")
    }

    /// The V4L2 format code of `codec`'s stream.
    static func codedFormat(of codec: VideoCodecType) -> V4L2PixelFormat {
        V4L2PixelFormat(codec == .h264 ? "H264" : "HEVC")!
    }

    /// Every hardware encoder on this machine, in node order; empty where there is none (or
    /// libv4l2 is missing).
    public static func devices() -> [VideoEncoderDevice] {
        V4L2Device.nodePaths().compactMap { path in
            guard let device = try? V4L2Device(path: path) else { return nil }
            defer { device.close() }
            return examine(device)
        }
    }

    /// The encoder at `device`'s node, or nil when it is none.
    static func examine(_ device: V4L2Device) -> VideoEncoderDevice? {
        guard let caps = try? device.capabilities(), caps.isMemoryToMemory, caps.canStream else { return nil }
        let capture = V4L2CodecQueue(.capture, device: device, multiplanar: caps.isMultiplanar)
        let output = V4L2CodecQueue(.output, device: device, multiplanar: caps.isMultiplanar)
        let coded = capture.pixelFormats(compressed: true)
        guard !coded.isEmpty else { return nil }  // a decoder or a converter
        let canForce = device.hasControl(V4L2CodecControl.forceKeyFrame)
        return VideoEncoderDevice(path: device.path, driver: caps.driver, name: caps.card, codedFormats: coded,
                                  pictureFormats: output.pixelFormats(), isMultiplanar: caps.isMultiplanar,
                                  canForceKeyframes: canForce, sizes: sizes(of: coded[0], on: device))
    }

    /// The stepwise range `VIDIOC_ENUM_FRAMESIZES` gives for `format`, or the discrete sizes' extremes.
    private static func sizes(of format: V4L2PixelFormat, on device: V4L2Device) -> [Int]? {
        var all: [(Int, Int)] = []
        for index in 0..<64 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = format.rawValue
            guard device.ioctl(CV4L2_VIDIOC_ENUM_FRAMESIZES(), &size) == 0 else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                all.append((Int(size.discrete.width), Int(size.discrete.height)))
            } else {
                let s = size.stepwise
                return [Int(s.min_width), Int(s.min_height), Int(s.max_width), Int(s.max_height)]
            }
        }
        guard let first = all.first else { return nil }
        return all.reduce([first.0, first.1, first.0, first.1]) { [min($0[0], $1.0), min($0[1], $1.1), max($0[2], $1.0), max($0[3], $1.1)] }
    }
}
