#if canImport(Glibc)
import Glibc
#endif

/// The Exif date and time (`YYYY:MM:DD HH:MM:SS`, local time) and its offset from UTC
/// (`+HH:MM`) for a moment in seconds since 1970 (the C function `localtime_r`).
struct ExifTime {
    var dateTime: String
    var offset: String

    init(unixSeconds: Int) {
        var seconds = time_t(unixSeconds)
        var local = tm()
        localtime_r(&seconds, &local)
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        dateTime = digits(Int(local.tm_year) + 1900, 4) + ":" + digits(Int(local.tm_mon) + 1, 2) + ":"
            + digits(Int(local.tm_mday), 2) + " " + digits(Int(local.tm_hour), 2) + ":" + digits(Int(local.tm_min), 2)
            + ":" + digits(Int(local.tm_sec), 2)
        let minutes = Int(local.tm_gmtoff) / 60
        offset = (minutes < 0 ? "-" : "+") + digits(abs(minutes) / 60, 2) + ":" + digits(abs(minutes) % 60, 2)
    }
}
