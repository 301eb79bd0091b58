#if canImport(Glibc)
import Glibc
#endif

/// How busy the guest's CPU is, from /proc: the recordings are real time on an emulated CPU,
/// and a summary that shows the CPU was saturated explains dropped frames.
enum GuestCPU {
    /// The guest's CPU time so far from /proc/stat, in clock ticks (1/100 s): busy (user, nice,
    /// system, irq, softirq, steal) and idle (idle, iowait).
    static func times() -> (busy: Int, idle: Int) {
        guard let line = firstLine(of: "/proc/stat") else { return (0, 0) }
        let fields = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard fields.count >= 8 else { return (0, 0) }
        return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7], fields[3] + fields[4])
    }

    /// CPU time so far of each thread of this process, in clock ticks, added up by thread name
    /// (the library names its threads movrec-encode, movrec-v4l2...).
    static func threadTimes() -> [String: Int] {
        var times: [String: Int] = [:]
        guard let dir = opendir("/proc/self/task") else { return times }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // "tid (name) state ppid ...": utime and stime are the 12th and 13th fields after the name.
            guard Int(tid) != nil, let line = firstLine(of: "/proc/self/task/\(tid)/stat"),
                  let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")") else { continue }
            let fields = line[line.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            times[String(line[line.index(after: open)..<close]), default: 0] += user + system
        }
        return times
    }
}
