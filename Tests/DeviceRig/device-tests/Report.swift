#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

/// What one case measured and what it found wrong.
///
/// Values keep their insertion order and are printed as `key=value`; values never contain
/// spaces, so the host can split a `CASE` line on blanks.
final class CaseRecord {
    let name: String
    private(set) var values: [(key: String, value: String)] = []
    private(set) var failures: [String] = []
    /// Why the guest's CPU looked too busy for real-time capture during the case, if it did:
    /// frames dropped for lack of CPU, or the CPU busy nearly all the time.
    var starvation: String?

    init(name: String) { self.name = name }

    /// Records a measurement. Spaces in the value become underscores.
    func set(_ key: String, _ value: some CustomStringConvertible) {
        let text = String(describing: value).map { $0 == " " ? "_" : $0 }
        values.removeAll { $0.key == key }
        values.append((key, String(text)))
    }

    /// Records a failure unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { failures.append(message()) }
    }

    func fail(_ message: String) { failures.append(message) }

    var passed: Bool { failures.isEmpty }

    /// The summary line: `CASE name status=pass|fail key=value ...`.
    var line: String {
        (["CASE", name, "status=\(passed ? "pass" : "fail")"] + values.map { "\($0.key)=\($0.value)" })
            .joined(separator: " ")
    }
}

/// The run's results: printed as they come and written to `summary.txt` in the output directory.
final class Report {
    let directory: String
    private(set) var records: [CaseRecord] = []

    init(directory: String) { self.directory = directory }

    func path(_ name: String) -> String { directory + "/" + name }

    func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    func add(_ record: CaseRecord) {
        records.append(record)
        say(record.line)
        if record.passed {
            say("PASS \(record.name)")
        } else {
            say("FAIL \(record.name): " + record.failures.joined(separator: "; "))
        }
    }

    /// Writes summary.txt (the CASE lines) and returns the number of failed cases.
    func finish() -> Int {
        let failed = records.filter { !$0.passed }
        let text = records.map(\.line).joined(separator: "\n") + "\n"
        do {
            let file = try MovieFileSink(path: path("summary.txt"), overwrite: true)
            try file.write(Array(text.utf8), at: 0)
            try file.close()
        } catch {
            say("FAIL writing \(path("summary.txt")): \(error)")
            return failed.count + 1
        }
        say(failed.isEmpty ? "PASS all \(records.count) cases"
                           : "FAIL \(failed.count) of \(records.count) cases: " + failed.map(\.name).joined(separator: " "))
        return failed.count
    }
}

/// A failure that ends a case early.
struct CaseError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seconds with three decimals, for summaries.
func seconds(_ duration: Duration) -> String {
    let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    let fraction = String(ms.magnitude % 1000)
    return (ms < 0 ? "-" : "") + "\(ms.magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Milliseconds to one decimal, comma-separated: a CASE line value.
func millisecondList(_ values: [Double]) -> String {
    values.map { String(Double(Int(($0 * 10).rounded())) / 10) }.joined(separator: ",")
}

/// A whole file's bytes.
func readFile(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw CaseError("cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = [], block = [UInt8](repeating: 0, count: 1 << 16)
    while case let count = fread(&block, 1, block.count, file), count > 0 { bytes += block[..<count] }
    return bytes
}
