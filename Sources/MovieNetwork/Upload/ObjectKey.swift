#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder

/// An object's key from ``UploadSettings/keyTemplate``.
enum ObjectKey {
    /// The key for the file at `path`, modified at `modified` (seconds since 1970).
    static func make(for path: String, kind: FinishedRecordingFile.Kind, modified: Int64, destination: UploadDestination,
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
        let fields = ["{prefix}": destination.prefix, "{device}": settings.deviceName, "{date}": date, "{kind}": folder,
                      "{name}": UploadStateStore.name(of: path)]
        var key = settings.keyTemplate
        for (field, value) in fields { key = key.replacingAll(field, with: value) }
        return key
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
