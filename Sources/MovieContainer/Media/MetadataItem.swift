/// One metadata item: a key in the `mdta` (reverse-DNS) namespace and its value.
public struct MetadataItem: Hashable, Sendable {
    /// A metadata value and the well-known type it is stored as.
    public enum Value: Hashable, Sendable {
        /// Text, stored as UTF-8 (well-known type 1) without a count or terminator.
        case string(String)
        /// A signed integer, stored in the fewest bytes that hold it: 1, 2 or 4 bytes as type 21
        /// (big-endian signed integer), or 8 bytes as type 74 (big-endian 64-bit signed integer),
        /// since type 21 covers only 1 to 4 bytes. FFmpeg 5.1 skips type 74 and exiftool 12.57
        /// shows it as binary data, so values within `Int32` reach the most readers.
        case int(Int64)
        /// A floating-point number, stored as type 23 (big-endian float32) when a `Float`
        /// holds it exactly, otherwise as type 24 (big-endian float64). FFmpeg 5.1 skips type
        /// 24; exiftool reads both.
        case double(Double)
        /// A value of any other type, kept as read: the 32-bit type indicator (type set in the
        /// first byte, 0 for well-known; the type in the other three) and the value bytes.
        case other(typeIndicator: UInt32, bytes: [UInt8])
    }

    /// The key, such as `com.apple.quicktime.make`.
    public var key: String
    /// The value, and the well-known type it is stored as.
    public var value: Value

    /// Creates a metadata item.
    /// - Parameters:
    ///   - key: The key in the `mdta` namespace, such as one of ``MetadataItem/QuickTimeKey``.
    ///   - value: The value.
    public init(key: String, value: Value) {
        self.key = key
        self.value = value
    }

    /// Keys Apple defines for QuickTime movies (QuickTime File Format, "QuickTime metadata
    /// keys").
    public enum QuickTimeKey {
        /// The key for the date the movie was recorded, as ISO 8601 text.
        public static let creationDate = "com.apple.quicktime.creationdate"
        /// The key for where the movie was recorded, as an ISO 6709 string.
        public static let locationISO6709 = "com.apple.quicktime.location.ISO6709"
        /// The key for the maker of the recording device.
        public static let make = "com.apple.quicktime.make"
        /// The key for the model of the recording device.
        public static let model = "com.apple.quicktime.model"
        /// The key for the name and version of the software that recorded the movie.
        public static let software = "com.apple.quicktime.software"
    }

    /// The date the movie was recorded, as ISO 8601 text such as `2026-01-01T09:30:00+0100`.
    public static func creationDate(_ iso8601: String) -> MetadataItem {
        MetadataItem(key: QuickTimeKey.creationDate, value: .string(iso8601))
    }

    /// The date the movie was recorded, written in UTC the way Apple's cameras write it:
    /// `2026-01-01T00:00:00+0000`.
    public static func creationDate(_ time: QuickTimeTimestamp) -> MetadataItem {
        creationDate(iso8601(time))
    }

    /// Where the movie was recorded, as an ISO 6709 string such as `+37.3317-122.0302+050.000/`.
    public static func location(iso6709: String) -> MetadataItem {
        MetadataItem(key: QuickTimeKey.locationISO6709, value: .string(iso6709))
    }

    /// Where the movie was recorded, from degrees and metres; `nil` for coordinates out of
    /// range. See ``iso6709(latitude:longitude:altitude:fractionDigits:)``.
    public static func location(latitude: Double, longitude: Double, altitude: Double? = nil) -> MetadataItem? {
        iso6709(latitude: latitude, longitude: longitude, altitude: altitude).map { location(iso6709: $0) }
    }

    /// The maker of the recording device.
    public static func make(_ make: String) -> MetadataItem {
        MetadataItem(key: QuickTimeKey.make, value: .string(make))
    }

    /// The model of the recording device.
    public static func model(_ model: String) -> MetadataItem {
        MetadataItem(key: QuickTimeKey.model, value: .string(model))
    }

    /// The name and version of the software that recorded the movie.
    public static func software(_ software: String) -> MetadataItem {
        MetadataItem(key: QuickTimeKey.software, value: .string(software))
    }

    /// Formats a position as Apple writes `com.apple.quicktime.location.ISO6709`: latitude as
    /// `±DD.DDDD`, longitude as `±DDD.DDDD`, altitude (when given) as `±AAA.AAA` metres, then
    /// `/`; for example `+37.3317-122.0302+050.000/`.
    ///
    /// Each number is scaled to an integer and rounded half away from zero, then written with
    /// integer arithmetic; a value that rounds to zero is written with `+`.
    /// - Returns: `nil` when the latitude is outside −90…90, the longitude outside −180…180, or
    ///   a value is not finite or the altitude beyond ±10^9 m.
    /// - Parameters:
    ///   - latitude: Degrees north.
    ///   - longitude: Degrees east.
    ///   - altitude: Metres above sea level, if known.
    ///   - fractionDigits: The decimals of latitude and longitude: 4 (about 10 m) as Apple
    ///     writes the movie's location, more for a timed track.
    public static func iso6709(latitude: Double, longitude: Double, altitude: Double? = nil, fractionDigits: Int = 4) -> String? {
        guard latitude.isFinite, abs(latitude) <= 90, longitude.isFinite, abs(longitude) <= 180,
              (1...9).contains(fractionDigits) else { return nil }
        var text = fixedPoint(latitude, integerDigits: 2, fractionDigits: fractionDigits)
            + fixedPoint(longitude, integerDigits: 3, fractionDigits: fractionDigits)
        if let altitude {
            guard altitude.isFinite, abs(altitude) <= 1e9 else { return nil }
            text += fixedPoint(altitude, integerDigits: 3, fractionDigits: 3)
        }
        return text + "/"
    }

    /// `value` with a sign, at least `integerDigits` digits before the point and exactly
    /// `fractionDigits` after it. `value` must be finite and small enough to scale into Int64.
    package static func fixedPoint(_ value: Double, integerDigits: Int, fractionDigits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = Int64((value.magnitude * Double(scale)).rounded(.toNearestOrAwayFromZero))
        let whole = String(scaled / scale), fraction = String(scaled % scale)
        return (value < 0 && scaled != 0 ? "-" : "+")
            + String(repeating: "0", count: max(0, integerDigits - whole.count)) + whole
            + "." + String(repeating: "0", count: fractionDigits - fraction.count) + fraction
    }

    /// A timestamp as ISO 8601 text in UTC with Apple's offset style: `2026-01-01T00:00:00+0000`;
    /// with `milliseconds`, as HLS's program date time writes it: `2026-01-01T00:00:00.250Z`.
    package static func iso8601(_ time: QuickTimeTimestamp, milliseconds: Int? = nil) -> String {
        // Days from 1904-01-01 to 1970-01-01: 66 years, 17 of them leap years.
        let days = Int64(time.secondsSince1904 / 86_400) - 24_107
        let seconds = Int64(time.secondsSince1904 % 86_400)
        // Civil date from days since 1970 (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ n: Int64, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) + "T" + digits(seconds / 3600, 2) + ":"
            + digits(seconds / 60 % 60, 2) + ":" + digits(seconds % 60, 2)
            + (milliseconds.map { "." + digits(Int64($0), 3) + "Z" } ?? "+0000")
    }
}
