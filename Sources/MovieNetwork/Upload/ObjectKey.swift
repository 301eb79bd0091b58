#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder

/// An object's key from ``UploadSettings/keyTemplate``.
enum ObjectKey {
    /// The key for the file at `path`, modified at `modified` (seconds since 1970).
    /// `name` is the file's name, without its directory.
    static func make(name: String, kind: FinishedRecordingFile.Kind, modified: Int64, destination: UploadDestination,
                     settings: UploadSettings) -> String {
        var time = time_t(modified), parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let folder: String
        switch kind {
        case .eventClip: folder = "clips"
        case .photo: folder = "photos"
        case .segment, .movie: folder = "recordings"
        }
        let fields = ["prefix": destination.prefix, "device": settings.deviceName, "date": date, "kind": folder, "name": name]
        return expand(settings.keyTemplate, fields)
    }

    /// The template with each `{field}` replaced in one pass, so a value that holds a field's
    /// name is taken as it is; an unknown field stays.
    static func expand(_ template: String, _ fields: [String: String]) -> String {
        var key = "", rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            key += rest[..<open]
            let field = String(rest[rest.index(after: open)..<close])
            key += fields[field] ?? "{\(field)}"
            rest = rest[rest.index(after: close)...]
        }
        return key + rest
    }

    /// A Boolean value that indicates whether the name can be part of a key and of the
    /// queue's records: no control character (a tab or a line break would break them).
    static func isUsable(_ name: String) -> Bool {
        !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Nil when the template can make keys, else what is wrong with it.
    static func problem(in template: String) -> String? {
        guard template.contains("{name}") else { return "the key template \(template) has no {name}: every file would get the same key" }
        guard !template.hasPrefix("/"), !template.contains(where: { $0 == "\t" || $0.isNewline }) else {
            return "the key template \(template) begins with a slash or holds a tab or a line break"
        }
        return nil
    }
}
