import MoviePlatform
import MovieCapture
#if canImport(Glibc)
import Glibc
#endif

extension IIOAccelerometer {
    /// How a buffered sample's counts become the device's gravity vector: the axes' scales and
    /// offsets, read once when the buffer starts, and the mount matrix.
    struct Calibration: Sendable {
        private var scale: [Double] = []
        private var offset: [Double] = []
        private let matrix: MountMatrix

        init(_ channels: Channels, matrix: MountMatrix) throws(GravitySourceError) {
            var values: [String: Double] = [:]
            for channel in [channels.x, channels.y, channels.z] {
                // The value of 0 counts is the offset times the scale; of 1 count, one more scale.
                let zero = try channels.value(channel, raw: 0, &values)
                let one = try channels.value(channel, raw: 1, &values)
                scale.append(one - zero)
                offset.append(scale.last == 0 ? 0 : zero / (one - zero))
            }
            self.matrix = matrix
        }

        /// The gravity vector of one sample's counts.
        func gravity(_ sample: IIOScanReader.Sample) -> GravityVector {
            let counts = [sample.x, sample.y, sample.z].map(Double.init)
            let axes = (0..<3).map { (counts[$0] + offset[$0]) * scale[$0] }
            return matrix.apply(GravityVector(x: axes[0], y: axes[1], z: axes[2]))
        }
    }

    /// Reads whole scans from `buffer` until a stop is requested or the device fails, then
    /// puts the buffer back as it was.
    static func readBuffer(_ buffer: IIOBuffer, calibration: Calibration, readings: Readings, run: CaptureRun,
                           handler: @Sendable (GravityVector, UInt64) -> Void) {
        defer { buffer.close() }
        guard var reader = IIOScanReader(layout: buffer.layout), let wake = try? WakePipe() else {
            readings.failure.withLock { $0 = GravitySourceError(.malformed, path: buffer.device, "the buffer's scans hold no three axes") }
            return
        }
        run.wakeOnStop(wake)
        var chunk = [UInt8](repeating: 0, count: max(4096, buffer.layout.scanBytes * 64))
        while !run.isStopRequested {
            var fds = [pollfd(fd: buffer.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            guard case .success = SystemCall.retrying({ poll(&fds, 2, -1) }), fds[1].revents == 0 else { return }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(buffer.descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            guard count > 0 else {
                let reason = count == 0 ? "the device closed" : String(cString: strerror(errno))
                readings.failure.withLock {
                    $0 = GravitySourceError(.unreadable, path: buffer.device,
                                            "reading the buffer: \(reason) — the device was removed or its driver unloaded")
                }
                return
            }
            for sample in reader.samples(from: chunk[..<count], readAt: MonotonicClock.now()) {
                let g = calibration.gravity(sample)
                readings.latest.withLock { $0 = g }
                readings.failure.withLock { $0 = nil }
                handler(g, sample.time)
            }
        }
    }
}
