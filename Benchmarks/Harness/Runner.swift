#if canImport(Glibc)
import Glibc
#endif

/// What one child process cost: wall time, CPU time (user + system) and peak resident memory,
/// from `wait4`'s rusage, and what it printed.
struct Measurement {
    var wall: Double
    var cpu: Double
    var peakRSS: Double  // bytes
    var output: String

    /// The `result NAME VALUE` lines a bench-worker prints.
    var results: [String: Double] {
        var values: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 3, words[0] == "result", let value = Double(words[2]) { values[String(words[1])] = value }
        }
        return values
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `arguments` (searched on PATH) to completion with standard output captured and
/// standard error kept for the error message; throws when it does not exit 0.
///
/// With `spawner` (`bench-spawn`), the command is started by that small program, which reports
/// the wall time, CPU time and peak RSS it measured. Started straight from here, a child's
/// `ru_maxrss` is never below the harness's own peak (Linux keeps the peak of the memory a
/// process ran in before exec, and a spawned child runs in its parent's until then); see
/// Benchmarks/Spawn/main.c.
func run(_ arguments: [String], scratch: String, spawner: String? = nil) throws -> Measurement {
    fflush(nil)  // what was printed so far shows before the child runs, in a log file too
    let outPath = scratch + "/stdout.txt", errPath = scratch + "/stderr.txt", reportPath = scratch + "/report.txt"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if spawner != nil { posix_spawn_file_actions_addopen(&actions, 3, reportPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    let spawned = spawner.map { [$0, "3"] + arguments } ?? arguments
    let argv = spawned.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = now()
    let status = posix_spawnp(&pid, spawned[0], &actions, nil, argv, environ)
    guard status == 0 else { throw HarnessError("cannot start \(spawned[0]): \(String(cString: strerror(status)))") }
    var wstatus: Int32 = 0
    var usage = rusage()
    while wait4(pid, &wstatus, 0, &usage) < 0 {
        guard errno == EINTR else { throw HarnessError("waiting for \(spawned[0]) failed: errno \(errno)") }
    }
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    var measurement = Measurement(wall: now() - start, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                                  peakRSS: Double(usage.ru_maxrss) * 1024, output: "")
    if let spawner {
        guard wstatus == 0 else { throw HarnessError("\(spawner) \(arguments[0]) failed (wait status \(wstatus))") }
        let words = ((try? readText(reportPath)) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        if words.count == 2, words[0] == "failed" {
            throw HarnessError("cannot start \(arguments[0]): \(String(cString: strerror(Int32(words[1]) ?? 0)))")
        }
        var fields: [String: Double] = [:]
        for pair in stride(from: 0, to: words.count - 1, by: 2) { fields[words[pair]] = Double(words[pair + 1]) }
        guard let childStatus = fields["status"], let wall = fields["wall"], let user = fields["user"],
              let system = fields["system"], let peak = fields["maxrss"] else {
            throw HarnessError("\(spawner) wrote no report for \(arguments.joined(separator: " "))")
        }
        wstatus = Int32(childStatus)
        measurement = Measurement(wall: wall, cpu: user + system, peakRSS: peak * 1024, output: "")
    }
    measurement.output = (try? readText(outPath)) ?? ""
    let exited = wstatus & 0x7f == 0
    let code = (wstatus >> 8) & 0xff
    guard exited, code == 0 else {
        let errors = ((try? readText(errPath)) ?? "").split(separator: "\n").suffix(5).joined(separator: "\n")
        throw HarnessError("\(arguments.joined(separator: " ")) \(exited ? "exited with \(code)" : "died of signal \(wstatus & 0x7f)"): \(errors)")
    }
    return measurement
}

/// Runs a shell command line (for input generation), failing with its last lines of output.
func shell(_ command: String, scratch: String) throws {
    _ = try run(["/bin/sh", "-c", command], scratch: scratch)
}

func readText(_ path: String) throws -> String {
    String(decoding: try readBytes(path), as: UTF8.self)
}

func readBytes(_ path: String, limit: Int = .max) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw HarnessError("cannot read \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 1 << 16)
    while bytes.count < limit {
        let count = fread(&block, 1, block.count, file)
        if count <= 0 { break }
        bytes.append(contentsOf: block[0..<count])
    }
    return bytes
}

func fileSize(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}

func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

func remove(_ path: String) { unlink(path) }

/// x264's option string from the version SEI it writes into the first access unit (found in
/// any container: it is stored as plain text).
func x264Options(inFile path: String) -> String? {
    guard let bytes = try? readBytes(path, limit: 4 << 20) else { return nil }
    let marker = Array("x264 - core".utf8)
    guard let start = bytes.indices.first(where: { i in bytes[i] == marker[0] && bytes[i...].starts(with: marker) }) else {
        return nil
    }
    let text = Array(bytes[start...].prefix { $0 != 0 })
    let label = Array("options: ".utf8)
    guard let at = text.indices.first(where: { text[$0...].starts(with: label) }) else { return nil }
    return String(decoding: text[(at + label.count)...], as: UTF8.self)
}

extension Array where Element == Double {
    func percentile(_ p: Double) -> Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        if p == 0.5 {
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
    var median: Double { percentile(0.5) }
}

/// Formats `value` with `decimals` places.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale), fraction = Int(scaled.truncatingRemainder(dividingBy: scale))
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard decimals > 0 else { return "\(sign)\(whole)" }
    let digits = String(fraction)
    return "\(sign)\(whole).\(String(repeating: "0", count: decimals - digits.count))\(digits)"
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func padLeft(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
