#if canImport(Glibc)
import Glibc
#endif

/// An event clip's file name: `event-YYYYMMDD-HHMMSS.mov`, the trigger's wall-clock second in
/// UTC, so the names sort by time; a second clip in the same second gets `-2`, and so on.
struct EventClipName {
    let stamp: String

    init(unixSeconds: Int64) {
        var time = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
        stamp = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The name for the `attempt`th try (1 first).
    func fileName(attempt: Int) -> String {
        "event-" + stamp + (attempt > 1 ? "-\(attempt)" : "") + ".mov"
    }

    /// Whether `name` is one of these names: what the clips' byte budget may delete.
    static func isClip(_ name: String) -> Bool {
        name.hasPrefix("event-") && name.hasSuffix(".mov")
    }
}
