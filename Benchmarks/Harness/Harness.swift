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
    /// Case a's cells to run, by name ("1080p veryfast grain"); all when nil.
    var encodeCellNames: Set<String>?
    var work: String
    var scratch: String
    var worker: String
    var movrec: String
    /// `bench-spawn`, which starts every measured run (see ``run(_:scratch:spawner:)``).
    var spawner: String
    var verdicts: [Verdict] = []
    var sections: [(String, JSON)] = []

    mutating func check(_ section: String, _ target: String, _ passed: Bool, _ detail: String) {
        verdicts.append(Verdict(section: section, target: target, passed: passed, detail: detail))
        print("  \(passed ? "PASS" : "FAIL")  \(target): \(detail)")
    }

    /// Runs `contenders` in alternation, one unmeasured warm-up round first, and returns every
    /// measured run per contender.
    ///
    /// The order changes from round to round so that each contender follows each other one
    /// equally often (``balancedOrders(_:)``). In a fixed order (A B C D A B C D …) the first
    /// contender always ran right after the last one had exited and its output had been removed,
    /// and in section b, after GStreamer, that cost it: in one `--only b` run with the same `movrec`
    /// binary in two places, its 9,000-frame runs took 29–92 ms (median 41) right after GStreamer
    /// and 28–40 ms (median 33) after the other `movrec`.
    ///
    /// `orderOffset` continues the orders of an earlier call: a cell measured again passes the
    /// number of rounds it has, so its measured rounds together use the orders as evenly as one
    /// call would (the warm-up takes the order of the earlier call's last round).
    func alternate(_ contenders: [(name: String, command: [String])], rounds: Int? = nil, orderOffset: Int = 0,
                   after: (String) throws -> Void = { _ in }) throws -> [String: [Measurement]] {
        var measured: [String: [Measurement]] = [:]
        let orders = Self.balancedOrders(contenders.count)
        for round in 0...(rounds ?? runs) {
            for index in orders[(round + orderOffset) % orders.count] {
                let contender = contenders[index]
                let measurement = try run(contender.command, scratch: scratch, spawner: spawner)
                try after(contender.name)
                if round > 0 { measured[contender.name, default: []].append(measurement) }
            }
        }
        return measured
    }

    /// Measures a cell again (cases a and b, when a library figure misses its target): every
    /// contender for `rounds` more rounds, the orders going on from the `measured` rounds, and
    /// each contender's new runs appended to its old ones, so figures pair runs of one round.
    func measureAgain(_ contenders: [(name: String, command: [String])], rounds: Int,
                      into measured: inout [String: [Measurement]], after: (String) throws -> Void) throws {
        let earlier = measured[contenders[0].name]?.count ?? 0
        let more = try alternate(contenders, rounds: rounds, orderOffset: earlier, after: after)
        for (name, _) in contenders { measured[name, default: []] += more[name]! }
    }

    /// Orders of `count` contenders in which, over all of them, each contender directly follows
    /// each other one equally often within a round (a Williams design): the first is 0, 1, n−1,
    /// 2, n−2, …, each next one adds 1 to every index modulo n, and for an odd n the reversed
    /// orders follow.
    static func balancedOrders(_ count: Int) -> [[Int]] {
        guard count > 1 else { return [Array(0..<count)] }
        var first = [0]
        var low = 1, high = count - 1
        while first.count < count {
            first.append(low)
            low += 1
            if first.count < count {
                first.append(high)
                high -= 1
            }
        }
        let orders = (0..<count).map { shift in first.map { ($0 + shift) % count } }
        return count % 2 == 0 ? orders : orders + orders.map { $0.reversed() }
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

/// The whole machine's CPU time so far, from /proc/stat's first line: all of it and the part the
/// hypervisor gave to other guests while this one wanted to run (steal), in clock ticks.
func machineCPUTicks() -> (total: Double, steal: Double) {
    let line = ((try? readText("/proc/stat")) ?? "").split(separator: "\n").first { $0.hasPrefix("cpu ") } ?? ""
    let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is in user's.
    guard fields.count >= 8 else { return (0, 0) }
    return (fields.prefix(8).reduce(0, +), fields[7])
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
