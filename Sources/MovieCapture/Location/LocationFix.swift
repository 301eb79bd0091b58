import MovieContainer

/// One position from a location source, such as a GPS fix from gpsd.
public struct LocationFix: Hashable, Sendable {
    /// Degrees north (negative south), WGS 84.
    public var latitude: Double
    /// Degrees east (negative west), WGS 84.
    public var longitude: Double
    /// Metres above mean sea level, when the fix is three-dimensional.
    public var altitude: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// Direction of motion in degrees clockwise from true north.
    public var course: Double?
    /// Horizontal accuracy in metres (95% confidence, as gpsd's `eph`).
    public var horizontalAccuracy: Double?
    /// The fix's own UTC time as ISO 8601 text, such as `2026-06-01T12:00:05.000Z`.
    public var time: String?
    /// When the fix arrived, in nanoseconds of `CLOCK_MONOTONIC`: where it goes on the movie's
    /// timeline.
    public var captureTime: UInt64

    /// Creates a fix.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil, speed: Double? = nil, course: Double? = nil,
                horizontalAccuracy: Double? = nil, time: String? = nil, captureTime: UInt64) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.time = time
        self.captureTime = captureTime
    }

    /// The keys of a movie's location track: the position, the fix's time, the direction of
    /// motion, the accuracy and the speed.
    public static let keys: [TimedMetadataKey] = [
        .locationISO6709, .locationDate, .directionMotion, .locationHorizontalAccuracy, .locationSpeed,
    ]

    /// The ISO 6709 text of the position: six decimals of a degree (about 0.1 m), altitude in
    /// millimetres when known; `nil` for coordinates out of range.
    public var iso6709: String? {
        MetadataItem.iso6709(latitude: latitude, longitude: longitude, altitude: altitude, fractionDigits: 6)
    }

    /// The fix as a location-track sample; empty when the coordinates are out of range.
    public var items: [TimedMetadataItem] {
        guard let iso6709 else { return [] }
        var items = [TimedMetadataItem(key: .locationISO6709, value: .string(iso6709))]
        if let time { items.append(.init(key: .locationDate, value: .string(time))) }
        if let course, course.isFinite { items.append(.init(key: .directionMotion, value: .string(Self.decimal(course)))) }
        if let horizontalAccuracy, horizontalAccuracy.isFinite {
            items.append(.init(key: .locationHorizontalAccuracy, value: .string(Self.decimal(horizontalAccuracy))))
        }
        if let speed, speed.isFinite { items.append(.init(key: .locationSpeed, value: .double(speed))) }
        return items
    }

    /// A number with two decimals, such as `87.30`.
    static func decimal(_ value: Double) -> String {
        var text = MetadataItem.fixedPoint(value, integerDigits: 1, fractionDigits: 2)
        if text.hasPrefix("+") { text.removeFirst() }
        return text
    }
}
