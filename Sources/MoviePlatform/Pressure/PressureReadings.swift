#if canImport(Glibc)
import Glibc
#endif

/// What the kernel and firmware say about heat, power and CPU contention, read from their
/// files under a root directory (`/` on a real system, a fixture tree in tests). Every reading
/// is optional: a machine without thermal zones, PSI or a Raspberry Pi firmware has none.
package struct PressureReadings: Sendable, Equatable {
    /// One thermal zone: its temperature and the trip points it declares, in millidegrees
    /// Celsius (`/sys/class/thermal/thermal_zoneN`).
    package struct ThermalZone: Sendable, Equatable {
        package var name: String
        package var temperature: Int
        package var passive: Int?
        package var hot: Int?
        package var critical: Int?

        package init(name: String, temperature: Int, passive: Int? = nil, hot: Int? = nil, critical: Int? = nil) {
            (self.name, self.temperature, self.passive, self.hot, self.critical) = (name, temperature, passive, hot, critical)
        }
    }

    package var thermalZones: [ThermalZone] = []
    /// The share of the last 10 s in which some runnable task waited for a CPU, in percent
    /// (`/proc/pressure/cpu`, `some avg10`).
    package var cpuSomeAverage10: Double?
    /// The Raspberry Pi firmware's throttling flags (`get_throttled`): bit 0 under-voltage,
    /// 1 frequency capped, 2 throttled, 3 soft temperature limit, each now; bits 16–19 the
    /// same since boot.
    package var firmwareThrottled: UInt32?

    package init(thermalZones: [ThermalZone] = [], cpuSomeAverage10: Double? = nil, firmwareThrottled: UInt32? = nil) {
        (self.thermalZones, self.cpuSomeAverage10, self.firmwareThrottled) = (thermalZones, cpuSomeAverage10, firmwareThrottled)
    }

    /// Reads everything present under `root`; what is missing or unreadable is left out.
    package static func read(root: String = "/") -> PressureReadings {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        return PressureReadings(thermalZones: thermalZones(in: base + "/sys/class/thermal"),
                                cpuSomeAverage10: cpuPressure(base + "/proc/pressure/cpu"),
                                firmwareThrottled: firmwareFlags(base + "/sys/devices/platform/soc/soc:firmware/get_throttled"))
    }

    /// Each `thermal_zoneN` with a readable temperature, in the order of N.
    static func thermalZones(in directory: String) -> [ThermalZone] {
        let names = (DirectoryEntries.names(in: directory) ?? []).filter { $0.hasPrefix("thermal_zone") }
        let ordered = names.sorted { (Int($0.dropFirst(12)) ?? 0) < (Int($1.dropFirst(12)) ?? 0) }
        return ordered.compactMap { name in
            let zone = directory + "/" + name
            guard let temperature = readText(zone + "/temp").flatMap({ Int($0) }) else { return nil }
            var reading = ThermalZone(name: readText(zone + "/type") ?? name, temperature: temperature)
            for index in 0..<16 {
                guard let type = readText(zone + "/trip_point_\(index)_type"),
                      let value = readText(zone + "/trip_point_\(index)_temp").flatMap({ Int($0) }) else { break }
                // The lowest trip point of each type counts.
                switch type {
                case "passive": reading.passive = min(reading.passive ?? value, value)
                case "hot": reading.hot = min(reading.hot ?? value, value)
                case "critical": reading.critical = min(reading.critical ?? value, value)
                default: break
                }
            }
            return reading
        }
    }

    /// `some avg10=N.NN` from a PSI file.
    static func cpuPressure(_ path: String) -> Double? {
        guard let text = readText(path) else { return nil }
        let some = text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("some ") }
        let field = some?.split(separator: " ").first { $0.hasPrefix("avg10=") }
        return field.flatMap { Double($0.dropFirst(6)) }
    }

    /// The firmware's flags, written as hexadecimal (`throttled=0x50005` through vcgencmd,
    /// `50005` in sysfs).
    static func firmwareFlags(_ path: String) -> UInt32? {
        guard var text = readText(path) else { return nil }
        if let equals = text.firstIndex(of: "=") { text = String(text[text.index(after: equals)...]) }
        if text.hasPrefix("0x") { text.removeFirst(2) }
        return UInt32(text, radix: 16)
    }

    /// A small text file's contents without surrounding white space, or nil when it cannot be
    /// read. Sysfs and procfs report sizes they do not have, so this reads until the end.
    static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 16_384 {
            let result = SystemCall.retrying { chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) } }
            guard case .success(let count) = result else { return nil }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return trimmingSysfsWhitespace(String(decoding: bytes, as: UTF8.self))
    }
}
