/// A key of a timed metadata track: a reverse-DNS identifier in the `mdta` namespace and the
/// well-known type its values are stored as (QuickTime File Format, "Timed metadata media").
///
/// A track lists its keys once, in its `mebx` sample description; each sample then holds the
/// values that apply from its time until the next sample's.
public struct TimedMetadataKey: Hashable, Sendable {
    /// A well-known data type (QuickTime File Format, "Well-known types"). A struct of static
    /// values rather than an enum, so a type this library does not name can still be read.
    public struct DataType: Hashable, Sendable, CustomStringConvertible {
        /// The type's number.
        public var rawValue: UInt32
        /// Creates a data type from its number.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Bytes without a stated meaning (type 0).
        public static let binary = DataType(rawValue: 0)
        /// UTF-8 text without a count or terminator (type 1).
        public static let utf8 = DataType(rawValue: 1)
        /// A big-endian 64-bit float (type 24).
        public static let float64 = DataType(rawValue: 24)
        /// A big-endian signed 16-bit integer (type 66).
        public static let int16 = DataType(rawValue: 66)
        /// A big-endian signed 64-bit integer (type 74).
        public static let int64 = DataType(rawValue: 74)

        /// The type's name, such as `utf8` or `type 13`.
        public var description: String {
            switch self {
            case .binary: "binary"
            case .utf8: "utf8"
            case .float64: "float64"
            case .int16: "int16"
            case .int64: "int64"
            default: "type \(rawValue)"
            }
        }
    }

    /// The key, such as `com.apple.quicktime.location.ISO6709`.
    public var identifier: String
    /// The type every value of the key is stored as.
    public var dataType: DataType

    /// Creates a key.
    /// - Parameters:
    ///   - identifier: A reverse-DNS name in the `mdta` namespace, such as
    ///     `com.example.sensor.temperature`.
    ///   - dataType: The type its values are stored as.
    public init(identifier: String, dataType: DataType) {
        self.identifier = identifier
        self.dataType = dataType
    }

    /// The capture orientation as an EXIF orientation (1–8), as iPhones write it: a signed
    /// 16-bit integer. exiftool `-ee` shows it as VideoOrientation.
    public static let videoOrientation = TimedMetadataKey(identifier: "com.apple.quicktime.video-orientation", dataType: .int16)
    /// A position as an ISO 6709 string such as `+52.520000+013.405000+034.000/`. exiftool
    /// `-ee` shows it as GPSCoordinates.
    public static let locationISO6709 = TimedMetadataKey(identifier: MetadataItem.QuickTimeKey.locationISO6709, dataType: .utf8)
    /// The direction of motion in degrees from true north, as a string such as `87.30`.
    public static let directionMotion = TimedMetadataKey(identifier: "com.apple.quicktime.direction.motion", dataType: .utf8)
    /// The horizontal accuracy of the position in metres, as a string such as `4.20`.
    public static let locationHorizontalAccuracy = TimedMetadataKey(identifier: "com.apple.quicktime.location.accuracy.horizontal", dataType: .utf8)
    /// The UTC time of the position fix, as ISO 8601 text such as `2026-06-01T12:00:05.000Z`.
    public static let locationDate = TimedMetadataKey(identifier: "com.apple.quicktime.location.date", dataType: .utf8)
    /// The speed over ground in metres per second (no key of Apple's holds it), a 64-bit float.
    public static let locationSpeed = TimedMetadataKey(identifier: "org.movierecorder.location.speed", dataType: .float64)

    /// The bytes `value` is stored as under this key's type, or `nil` when the value is not of
    /// that type (text for a number key, a number out of range).
    public func encode(_ value: MetadataItem.Value) -> [UInt8]? {
        var w = ByteWriter(capacity: 16)
        switch (dataType, value) {
        case (.utf8, .string(let text)):
            return Array(text.utf8)
        case (.int16, .int(let n)):
            guard let short = Int16(exactly: n) else { return nil }
            w.write(short)
        case (.int64, .int(let n)):
            w.write(n)
        case (.float64, .double(let x)):
            w.write(x.bitPattern)
        case (_, .other(let indicator, let bytes)) where indicator == dataType.rawValue:
            return bytes
        default:
            return nil
        }
        return w.bytes
    }

    /// Reads a value stored under this key; a width the type does not allow, or a type this
    /// library does not decode, is kept as ``MetadataItem/Value/other(typeIndicator:bytes:)``.
    public func decode(_ bytes: [UInt8]) -> MetadataItem.Value {
        MetadataValueAtom.decode(typeIndicator: dataType.rawValue, bytes) ?? .other(typeIndicator: dataType.rawValue, bytes: bytes)
    }
}
