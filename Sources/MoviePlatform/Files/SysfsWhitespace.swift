/// The text of a sysfs attribute without the spaces, tabs and newline around it.
package func trimmingSysfsWhitespace<S: StringProtocol>(_ text: S) -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
        return ""
    }
    return String(text[first...last])
}
