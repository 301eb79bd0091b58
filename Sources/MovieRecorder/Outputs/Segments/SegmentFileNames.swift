#if canImport(Glibc)
import Glibc
#endif

/// How the files of a segmented recording are named: a pattern with one printf-style number
/// field (`clip-%03d.mov`: `clip-000.mov`, `clip-001.mov`…), or, with ``usesDateFields``,
/// strftime fields filled with each segment's local start time (`%Y-%m-%d_%H-%M-%S.mov`).
public struct SegmentFileNames: Hashable, Sendable {
    /// The pattern, such as `clip-%03d.mov` or `%Y-%m-%d_%H-%M-%S.mov`.
    public let pattern: String
    /// A Boolean value that indicates whether the pattern holds strftime fields rather than a
    /// number field.
    public let usesDateFields: Bool
    /// The number of the first segment; 0 by default, as FFmpeg's segment muxer counts.
    public var firstNumber: Int

    /// Creates the names from `pattern`.
    /// - Throws: ``RecordingError`` with ``RecordingError/Code/invalidSettings`` for a number
    ///   pattern without exactly one `%d` field (with an optional zero flag and width, as in
    ///   `%03d`; `%%` is a percent sign), or a date pattern without any strftime field.
    public init(pattern: String, usesDateFields: Bool = false, firstNumber: Int = 0) throws(RecordingError) {
        self.pattern = pattern
        self.usesDateFields = usesDateFields
        self.firstNumber = firstNumber
        if usesDateFields {
            guard pattern.contains("%") else {
                throw RecordingError(.invalidSettings, "segment names '\(pattern)': a date pattern needs strftime fields such as %Y-%m-%d_%H-%M-%S, or every segment gets the same name")
            }
        } else {
            guard Self.numberField(in: pattern) != nil else {
                throw RecordingError(.invalidSettings, "segment names '\(pattern)': the pattern needs exactly one number field such as %d or %03d (write %% for a percent sign), or use date fields")
            }
        }
    }

    /// The name of segment `index` (0 for the first) starting at `unixSeconds`.
    public func path(index: Int, unixSeconds: Int64) -> String {
        if usesDateFields { return Self.formatDate(pattern, unixSeconds) }
        guard let field = Self.numberField(in: pattern) else { return pattern }
        var digits = String(firstNumber + index)
        if field.width > digits.count { digits = String(repeating: field.zeroPadded ? "0" : " ", count: field.width - digits.count) + digits }
        let before = pattern[..<field.range.lowerBound].replacingPercents()
        let after = pattern[field.range.upperBound...].replacingPercents()
        return before + digits + after
    }

    /// The one `%[0][width]d` field of `pattern`, or nil when there is none or more than one
    /// (or another conversion).
    static func numberField(in pattern: String) -> (range: Range<String.Index>, width: Int, zeroPadded: Bool)? {
        var found: (range: Range<String.Index>, width: Int, zeroPadded: Bool)?
        var index = pattern.startIndex
        while index < pattern.endIndex {
            guard pattern[index] == "%" else { index = pattern.index(after: index); continue }
            var cursor = pattern.index(after: index)
            if cursor < pattern.endIndex, pattern[cursor] == "%" { index = pattern.index(after: cursor); continue }
            let zero = cursor < pattern.endIndex && pattern[cursor] == "0"
            let digits = pattern[cursor...].prefix { $0.isASCII && $0.isNumber }
            cursor = digits.endIndex
            guard cursor < pattern.endIndex, pattern[cursor] == "d", found == nil, digits.count <= 2 else { return nil }
            found = (index..<pattern.index(after: cursor), Int(digits) ?? 0, zero)
            index = pattern.index(after: cursor)
        }
        return found
    }

    /// `pattern` with its strftime fields filled with the local time at `unixSeconds`.
    static func formatDate(_ pattern: String, _ unixSeconds: Int64) -> String {
        var time = time_t(unixSeconds)
        var parts = tm()
        localtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Substring {
    /// The text with `%%` written as `%`.
    fileprivate func replacingPercents() -> String {
        var result = ""
        var index = startIndex
        while index < endIndex {
            result.append(self[index])
            if self[index] == "%", self.index(after: index) < endIndex, self[self.index(after: index)] == "%" {
                index = self.index(index, offsetBy: 2)
            } else {
                index = self.index(after: index)
            }
        }
        return result
    }
}
