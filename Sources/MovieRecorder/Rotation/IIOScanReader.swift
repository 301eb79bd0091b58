/// Turns the bytes read from an IIO buffer into samples: the three axes' raw values and the
/// time each scan was taken, on `MonotonicClock`.
///
/// A read may end inside a scan (a FIFO standing in for the device does that); the rest waits
/// for the next read. The device's timestamps (on whatever clock `current_timestamp_clock`
/// names) keep the samples' spacing; they are moved onto the monotonic clock by the smallest
/// offset seen between a read's newest scan and the time it was read, so a thread that wakes
/// late does not squeeze a burst of samples into one instant. Without a timestamp channel
/// every scan of a read takes the time of the read.
struct IIOScanReader: Sendable {
    /// One scan's raw axes and its time.
    struct Sample: Sendable, Equatable {
        var x: Int64
        var y: Int64
        var z: Int64
        var time: UInt64
    }

    private let layout: IIOScanLayout
    private let axes: [IIOScanLayout.Element]
    private let timestamp: IIOScanLayout.Element?
    private var carried: [UInt8] = []
    private var offset: Int64?
    private var lastStamp = Int64.min
    private var lastTime: UInt64 = 0

    /// A reader for scans laid out as `layout`, which must hold `in_accel_x`, `_y` and `_z`.
    init?(layout: IIOScanLayout) {
        guard layout.scanBytes > 0, let x = layout.element("in_accel_x"), let y = layout.element("in_accel_y"),
              let z = layout.element("in_accel_z") else { return nil }
        self.layout = layout
        axes = [x, y, z]
        timestamp = layout.element("in_timestamp")
    }

    /// The samples that `bytes`, read at `now`, complete.
    mutating func samples(from bytes: some Collection<UInt8>, readAt now: UInt64) -> [Sample] {
        carried.append(contentsOf: bytes)
        let count = carried.count / layout.scanBytes
        guard count > 0 else { return [] }
        var decoded: [(x: Int64, y: Int64, z: Int64, stamp: Int64?)] = []
        carried.withUnsafeBytes { raw in
            for scan in 0..<count {
                let base = scan * layout.scanBytes
                let values = axes.map { $0.type.value(in: raw, at: base + $0.offset) }
                let stamp = timestamp.map { $0.type.value(in: raw, at: base + $0.offset) }
                decoded.append((values[0], values[1], values[2], stamp))
            }
        }
        carried.removeFirst(count * layout.scanBytes)
        return decoded.map { Sample(x: $0.x, y: $0.y, z: $0.z, time: time(of: $0.stamp, newest: decoded.last?.stamp, now: now)) }
    }

    /// The monotonic time of a scan stamped `stamp`, the newest of its read being `newest`.
    private mutating func time(of stamp: Int64?, newest: Int64??, now: UInt64) -> UInt64 {
        guard let stamp, let newest = newest ?? nil else { return now }
        if stamp < lastStamp { offset = nil }  // the timestamp clock was set back
        lastStamp = stamp
        let seen = Int64(bitPattern: now) &- newest
        offset = min(offset ?? seen, seen)
        let mapped = UInt64(bitPattern: max(0, stamp &+ (offset ?? seen)))
        lastTime = max(lastTime, min(mapped, now))
        return lastTime
    }
}
