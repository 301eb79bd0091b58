#if canImport(Glibc)
import Glibc
#endif

/// A target from the issue, checked by the harness itself.
struct Verdict {
    var section: String
    var target: String
    var passed: Bool
    var detail: String

    var json: JSON {
        .object([("section", .string(section)), ("target", .string(target)), ("passed", .bool(passed)),
                 ("detail", .string(detail))])
    }
}

/// Where the tools are and how much to do.
struct Harness {
    var runs = 11
    var quick = false
    var work: String
    var scratch: String
    var worker: String
    var movrec: String
    var verdicts: [Verdict] = []
    var sections: [(String, JSON)] = []

    mutating func check(_ section: String, _ target: String, _ passed: Bool, _ detail: String) {
        verdicts.append(Verdict(section: section, target: target, passed: passed, detail: detail))
        print("  \(passed ? "PASS" : "FAIL")  \(target): \(detail)")
    }

    /// Runs `contenders` in alternation (A B C A B C …), one unmeasured warm-up round first, and
    /// returns every measured run per contender.
    func alternate(_ contenders: [(name: String, command: [String])], rounds: Int? = nil,
                   after: (String) throws -> Void = { _ in }) throws -> [String: [Measurement]] {
        var measured: [String: [Measurement]] = [:]
        for round in 0...(rounds ?? runs) {
            for contender in contenders {
                let measurement = try run(contender.command, scratch: scratch)
                try after(contender.name)
                if round > 0 { measured[contender.name, default: []].append(measurement) }
            }
        }
        return measured
    }

    /// Medians of each contender's runs, as JSON.
    static func summary(_ runs: [Measurement]) -> JSON {
        .object([("wallSeconds", .number(runs.map(\.wall).median)), ("cpuSeconds", .number(runs.map(\.cpu).median)),
                 ("peakRSSMiB", .number(runs.map(\.peakRSS).median / 1_048_576)),
                 ("wallSecondsAll", .array(runs.map { .number($0.wall) }))])
    }

    /// The per-round ratio `reference wall ÷ contender wall` (above 1: the contender is faster),
    /// median over rounds.
    static func speedRatio(_ contender: [Measurement], over reference: [Measurement]) -> Double {
        zip(contender, reference).map { $0.1.wall / $0.0.wall }.median
    }
}

func mib(_ bytes: Double) -> String { fixed(bytes / 1_048_576, 1) + " MiB" }

/// A signed size: "+3.2 MiB" or "-1.8 MiB".
func signedMiB(_ bytes: Double) -> String { (bytes >= 0 ? "+" : "") + mib(bytes) }

/// The first line of a command's output, or "unknown".
func version(_ command: [String], scratch: String) -> String {
    guard let measurement = try? run(command, scratch: scratch) else { return "unknown" }
    let text = measurement.output.isEmpty ? ((try? readText(scratch + "/stderr.txt")) ?? "") : measurement.output
    return text.split(separator: "\n").first.map(String.init) ?? "unknown"
}

func machineDescription(scratch: String) -> JSON {
    let cpuInfo = (try? readText("/proc/cpuinfo")) ?? ""
    let model = cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":", maxSplits: 1).last.map { String($0.drop { $0 == " " }) } ?? "unknown"
    var name = utsname()
    uname(&name)
    let kernel = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let memory = ((try? readText("/proc/meminfo")) ?? "").split(separator: "\n").first.map(String.init) ?? ""
    return .object([
        ("cpu", .string(model)), ("cores", .number(Double(sysconf(Int32(_SC_NPROCESSORS_ONLN))))),
        ("kernel", .string(kernel)), ("memory", .string(memory.replacingSpaces())),
        ("x264", .string(version(["x264", "--version"], scratch: scratch))),
        ("ffmpeg", .string(version(["ffmpeg", "-version"], scratch: scratch))),
        ("gstreamer", .string(version(["gst-launch-1.0", "--version"], scratch: scratch))),
        ("swift", .string(version(["swift", "--version"], scratch: scratch))),
    ])
}

extension String {
    func replacingSpaces() -> String {
        split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
