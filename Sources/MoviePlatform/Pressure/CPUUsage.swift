#if canImport(Glibc)
import Glibc
#endif

/// How much CPU this process and everything else used between two readings, in cores: what a
/// recording needs to know before it takes back a frame-rate step (the encoder's own time
/// says nothing of a neighbour that left).
package struct CPUUsage: Sendable, Equatable {
    /// Cores this process kept busy on average.
    package var own: Double
    /// Cores everything else kept busy on average.
    package var others: Double
    /// Cores online.
    package var cores: Int

    /// The cores left for this process: those online less what the others use.
    package var available: Double { max(0, Double(cores) - others) }

    package init(own: Double, others: Double, cores: Int) {
        (self.own, self.others, self.cores) = (own, others, cores)
    }

    /// A reading of the counters: the system's busy time from `/proc/stat` and this process's
    /// CPU time, in nanoseconds, at `time`.
    package struct Sample: Sendable {
        var systemBusy: UInt64
        var ownTime: UInt64
        var time: UInt64
    }

    /// Reads the counters now; nil where `/proc/stat` under `root` cannot be read.
    package static func sample(root: String, now: UInt64) -> Sample? {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        guard let text = PressureReadings.readText(base + "/proc/stat"),
              let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        // user nice system idle iowait irq softirq steal, in clock ticks; idle and iowait are not busy.
        let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 8 else { return nil }
        let busyTicks = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
        let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let own = nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
        return Sample(systemBusy: busyTicks * (1_000_000_000 / ticksPerSecond), ownTime: own, time: now)
    }

    /// The usage between two samples; nil when no time passed.
    package static func between(_ earlier: Sample, _ later: Sample) -> CPUUsage? {
        guard later.time > earlier.time else { return nil }
        let span = Double(later.time - earlier.time)
        let own = Double(later.ownTime &- earlier.ownTime) / span
        let busy = Double(later.systemBusy &- earlier.systemBusy) / span
        return CPUUsage(own: own, others: max(0, busy - own), cores: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    private static func nanoseconds(_ value: timeval) -> UInt64 {
        UInt64(value.tv_sec) * 1_000_000_000 + UInt64(value.tv_usec) * 1_000
    }
}
