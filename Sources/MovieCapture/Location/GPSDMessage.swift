/// One line of gpsd's JSON protocol (gpsd_json(5)), read far enough for a location source: its
/// class and, for a `TPV` report, the fix. Parsing is strict JSON with bounded nesting, since
/// the line comes from the network.
struct GPSDMessage: Equatable {
    /// The `class` member: `VERSION`, `DEVICES`, `WATCH`, `TPV`, `SKY`, `ERROR`…
    var kind: String
    /// The members that are numbers or strings.
    var numbers: [String: Double] = [:]
    var strings: [String: String] = [:]

    /// Parses a line; `nil` when it is not a JSON object with a string `class`.
    init?(line: String) {
        var parser = Parser(bytes: Array(line.utf8))
        guard case .object(let members)? = try? parser.document() else { return nil }
        for (name, value) in members {
            switch value {
            case .number(let n): numbers[name] = n
            case .string(let s): strings[name] = s
            default: continue
            }
        }
        guard let kind = strings["class"] else { return nil }
        self.kind = kind
    }

    /// The fix of a `TPV` report whose mode is 2 (2D) or 3 (3D) and that has a position; `nil`
    /// for other messages and for a report without a fix.
    func fix(capturedAt captureTime: UInt64) -> LocationFix? {
        guard kind == "TPV", let mode = numbers["mode"], mode >= 2,
              let latitude = numbers["lat"], let longitude = numbers["lon"],
              latitude.isFinite, abs(latitude) <= 90, longitude.isFinite, abs(longitude) <= 180 else { return nil }
        // gpsd 3.20 on: altMSL (and altHAE); before, alt.
        let altitude = mode >= 3 ? numbers["altMSL"] ?? numbers["alt"] : nil
        return LocationFix(latitude: latitude, longitude: longitude, altitude: altitude, speed: numbers["speed"],
                           course: numbers["track"], horizontalAccuracy: numbers["eph"], time: strings["time"],
                           captureTime: captureTime)
    }

    /// A parsed JSON value.
    enum Value {
        case object([(String, Value)]), array([Value]), string(String), number(Double), bool(Bool), null
    }

    struct Failure: Error {}

    /// A recursive-descent JSON parser over UTF-8 bytes, nesting at most 16 deep.
    struct Parser {
        let bytes: [UInt8]
        var position = 0

        mutating func document() throws(Failure) -> Value {
            let value = try value(depth: 0)
            skipSpace()
            guard position == bytes.count else { throw Failure() }
            return value
        }

        private mutating func skipSpace() {
            while position < bytes.count, [9, 10, 13, 32].contains(bytes[position]) { position += 1 }
        }

        private mutating func value(depth: Int) throws(Failure) -> Value {
            guard depth < 16 else { throw Failure() }
            skipSpace()
            guard position < bytes.count else { throw Failure() }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        private mutating func object(depth: Int) throws(Failure) -> Value {
            position += 1
            var members: [(String, Value)] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw Failure() }
                let name = try string()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw Failure() }
                position += 1
                members.append((name, try value(depth: depth + 1)))
                skipSpace()
                guard position < bytes.count else { throw Failure() }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { throw Failure() }
            }
        }

        private mutating func array(depth: Int) throws(Failure) -> Value {
            position += 1
            var elements: [Value] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard position < bytes.count else { throw Failure() }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "]") { return .array(elements) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { throw Failure() }
            }
        }

        private mutating func literal(_ word: String) throws(Failure) {
            let expected = Array(word.utf8)
            guard position + expected.count <= bytes.count, Array(bytes[position..<position + expected.count]) == expected else {
                throw Failure()
            }
            position += expected.count
        }

        private mutating func number() throws(Failure) -> Double {
            let start = position
            while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
            guard position > start, let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else { throw Failure() }
            return value
        }

        private mutating func string() throws(Failure) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll()
            }
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard position < bytes.count else { throw Failure() }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "u"):
                        guard position + 4 <= bytes.count,
                              let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else { throw Failure() }
                        position += 4
                        scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                    default: throw Failure()
                    }
                default:
                    guard byte >= 0x20 else { throw Failure() }
                    run.append(byte)
                }
            }
            throw Failure()
        }
    }
}
