/// A GPX 1.1 track (topografix.com/GPX/1/1) made from a movie's timed location samples: one
/// `trkpt` per sample that holds a position, its `time` the fix's own (the sample's
/// `location.date`) or else the movie's creation time plus the sample's time.
public struct GPXDocument: Sendable {
    /// One point: degrees, metres and its UTC time as ISO 8601 text.
    public struct Point: Hashable, Sendable {
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// Metres above sea level, when the sample has it.
        public var altitude: Double?
        /// The UTC time, such as `2026-06-01T12:00:05.000Z`.
        public var time: String
    }

    /// The points in movie order.
    public var points: [Point]

    /// The points of `samples`, the location track of a movie created at `creationTime`.
    public init(samples: [TimedMetadataSample], creationTime: QuickTimeTimestamp) {
        points = samples.compactMap { sample in
            guard case .string(let text)? = sample.value(of: .locationISO6709),
                  let position = Self.parseISO6709(text) else { return nil }
            var time = MetadataItem.iso8601(creationTime, milliseconds: 0)
            if case .string(let date)? = sample.value(of: .locationDate) {
                time = date
            } else if sample.time.isFinite, sample.time >= 0, sample.time < 1e12 {
                let millis = Int64((sample.time * 1000).rounded())
                let (seconds, overflow) = creationTime.secondsSince1904.addingReportingOverflow(UInt64(millis / 1000))
                if !overflow {
                    time = MetadataItem.iso8601(QuickTimeTimestamp(secondsSince1904: seconds), milliseconds: Int(millis % 1000))
                }
            }
            return Point(latitude: position.latitude, longitude: position.longitude, altitude: position.altitude, time: time)
        }
    }

    /// The document as XML.
    public var xml: String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                     #"<gpx version="1.1" creator="MovieRecorder" xmlns="http://www.topografix.com/GPX/1/1">"#,
                     "  <trk>", "    <trkseg>"]
        for point in points {
            lines.append(#"      <trkpt lat="\#(Self.decimal(point.latitude))" lon="\#(Self.decimal(point.longitude))">"#)
            if let altitude = point.altitude { lines.append("        <ele>\(Self.decimal(altitude))</ele>") }
            lines.append("        <time>\(Self.escaped(point.time))</time>")
            lines.append("      </trkpt>")
        }
        lines += ["    </trkseg>", "  </trk>", "</gpx>", ""]
        return lines.joined(separator: "\n")
    }

    /// Reads an ISO 6709 string as this library and Apple write it (`±DD.D±DDD.D[±A.A]/`).
    /// - Returns: `nil` for text in another form or coordinates out of range.
    public static func parseISO6709(_ text: String) -> (latitude: Double, longitude: Double, altitude: Double?)? {
        guard text.hasSuffix("/") else { return nil }
        var numbers: [Double] = []
        var current = ""
        for character in text.dropLast() {
            if (character == "+" || character == "-"), !current.isEmpty {
                guard let value = Double(current) else { return nil }
                numbers.append(value)
                current = ""
            }
            current.append(character)
        }
        guard let last = Double(current), current.first == "+" || current.first == "-" else { return nil }
        numbers.append(last)
        guard numbers.count == 2 || numbers.count == 3, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        return (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : nil)
    }

    /// A number as GPX writes it: plain decimal, up to 7 places, without a trailing zero.
    static func decimal(_ value: Double) -> String {
        var text = MetadataItem.fixedPoint(value, integerDigits: 1, fractionDigits: 7)
        if text.hasPrefix("+") { text.removeFirst() }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Text with XML's special characters escaped.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
