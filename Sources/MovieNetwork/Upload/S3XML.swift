/// The few elements S3's small XML answers carry (an error's code, an upload ID, listed parts
/// and uploads), read without a general parser: S3 writes each as `<Name>text</Name>`.
enum S3XML {
    /// The text of each `<tag>…</tag>` in `xml`, entities decoded.
    static func values(_ tag: String, in xml: Substring) -> [String] {
        blocks(tag, in: xml).map { decoded($0) }
    }

    /// The first `<tag>` text, or nil.
    static func value(_ tag: String, in xml: Substring) -> String? {
        blocks(tag, in: xml).first.map { decoded($0) }
    }

    /// The raw contents of each `<tag>…</tag>`, for blocks that hold elements (`Part`, `Upload`).
    static func blocks(_ tag: String, in xml: Substring) -> [Substring] {
        var found: [Substring] = []
        var rest = xml
        while let open = rest.firstRange(of: "<\(tag)>"), let close = rest[open.upperBound...].firstRange(of: "</\(tag)>") {
            found.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// Text with XML's five entities and numeric references decoded.
    static func decoded(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = "", rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let name = rest[rest.index(after: amp)..<semi]
            switch name {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : name.hasPrefix("#") ? UInt32(name.dropFirst()) : nil
                out += number.flatMap(Unicode.Scalar.init).map { String($0) } ?? "&\(name);"
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// `text` with `&`, `<` and `>` escaped, for the XML the queue sends.
    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
