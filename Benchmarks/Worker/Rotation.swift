#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

/// Case d: the time from a coordinator's angle change (a new gravity reading) until every
/// output of the capture service has the new angle, over many changes.
///
/// `rotation [--changes N]`: reports the median, p99 and worst latency in seconds.
func rotation(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let changes = Int(try options.number("--changes", default: 10_000))
    let gravity = ManualGravitySource()
    let service = CaptureService()
    let observer = RotationObserver(gravitySource: gravity)
    let outputs: [any OutputService] = [MovieFileOutput(), VideoDataOutput(), PhotoOutput(model: "bench")]
    for output in outputs { try await service.addOutput(output) }
    await service.observeRotation(of: observer)
    try observer.setCamera(TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)),
                           mounting: CameraMounting(position: .back))
    let angles = [90, 180, 270, 0]
    var latencies: [UInt64] = []
    latencies.reserveCapacity(changes)
    // Measured from another thread than the cooperative pool's, as a sensor thread would set it.
    let measured = try await runOnThread {
        var latencies: [UInt64] = []
        latencies.reserveCapacity(changes)
        for i in 0..<changes {
            let angle = Double(angles[i % 4])
            let start = MonotonicClock.now()
            gravity.setRotation(clockwiseDegrees: Int(angle))
            var spins = 0
            while !outputs.allSatisfy({ $0.videoRotationAngle == angle }) {
                spins += 1
                if spins > 10_000_000 { throw WorkerError("change \(i) to \(angle)° never reached every output") }
            }
            latencies.append(MonotonicClock.now() - start)
        }
        return latencies
    }
    latencies = measured.sorted()
    await service.stopObservingRotation()
    func percentile(_ p: Double) -> Double { Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e9 }
    report("changes", Double(changes))
    report("median", percentile(0.5))
    report("p99", percentile(0.99))
    report("max", Double(latencies.last ?? 0) / 1e9)
}

/// Runs `body` on a new thread (not the cooperative pool) and returns its result.
func runOnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let box = Unmanaged.passRetained(ThreadBody { continuation.resume(with: Result { try body() }) })
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard status == 0 else {
            box.release()
            continuation.resume(throwing: WorkerError("pthread_create failed (\(status))"))
            return
        }
        pthread_detach(thread)
    }
}

final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
