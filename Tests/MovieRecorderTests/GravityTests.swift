import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

// MARK: - Fixture trees

/// One sysfs-shaped accelerometer tree under Fixtures/iio (see Fixtures/README.md) and what it
/// must read as.
struct IIOCase: Sendable, CustomStringConvertible {
    var name: String
    var chip: String
    /// The device-frame vector, written out from the files: (raw + offset) × scale, then the
    /// mount matrix.
    var gravity: GravityVector
    /// The rotation an estimator that has seen nothing before reports.
    var rotation: Int?

    var root: String { fixture("iio/" + name) }
    var device: String { root + "/iio:device0" }
    var description: String { name }
}

private let scale = 0.009576806

let iioCases: [IIOCase] = [
    IIOCase(name: "portrait", chip: "kxcjk1013",
            gravity: GravityVector(x: 12 * scale, y: 1019 * scale, z: -31 * scale), rotation: 0),
    IIOCase(name: "landscape-left", chip: "kxcjk1013",
            gravity: GravityVector(x: -1021 * scale, y: 8 * scale, z: 40 * scale), rotation: 90),
    IIOCase(name: "landscape-right", chip: "kxcjk1013",
            gravity: GravityVector(x: 1018 * scale, y: -15 * scale, z: 22 * scale), rotation: 270),
    IIOCase(name: "upside-down", chip: "kxcjk1013",
            gravity: GravityVector(x: -9 * scale, y: -1022 * scale, z: 18 * scale), rotation: 180),
    IIOCase(name: "face-up", chip: "kxcjk1013",
            gravity: GravityVector(x: 5 * scale, y: -11 * scale, z: 1026 * scale), rotation: nil),
    // Raw (1020, 6, −25); the matrix rows "0, -1, 0; 1, 0, 0; 0, 0, 1" give x' = −y, y' = x.
    IIOCase(name: "with-mount-matrix", chip: "bmc150_accel",
            gravity: GravityVector(x: -6 * scale, y: 1020 * scale, z: -25 * scale), rotation: 0),
    // Per-axis scales win over the shared 0.038307; z's own offset wins over the shared −2048.
    IIOCase(name: "per-axis-scale-with-offset", chip: "adc_accel",
            gravity: GravityVector(x: (1536 - 2048) * 0.019146, y: (2053 - 2048) * 0.019160, z: (2075 - 2061) * 0.019153),
            rotation: 90),
]

/// Whether `actual` is within 1% of `expected`'s magnitude, on every axis.
func isClose(_ actual: GravityVector, _ expected: GravityVector, tolerance: Double = 0.01) -> Bool {
    let magnitude = (expected.x * expected.x + expected.y * expected.y + expected.z * expected.z).squareRoot()
    let limit = tolerance * magnitude
    return abs(actual.x - expected.x) <= limit && abs(actual.y - expected.y) <= limit && abs(actual.z - expected.z) <= limit
}

/// A copy of a fixture tree to change, removed by the caller with `cleanUp`.
func copyOfFixtureTree(_ name: String) throws -> (directory: TemporaryDirectory, device: String) {
    let temporary = try TemporaryDirectory()
    try FileManager.default.copyItem(atPath: fixture("iio/" + name + "/iio:device0"), toPath: temporary.file("iio:device0"))
    return (temporary, temporary.file("iio:device0"))
}

func writeAttribute(_ device: String, _ file: String, _ text: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: device + "/" + file))
}

@Suite struct GravityFixtureTests {
    @Test(arguments: iioCases)
    func readsTheFixtureTree(_ c: IIOCase) throws {
        let accelerometer = try IIOAccelerometer(path: c.device)
        #expect(accelerometer.name == c.chip)
        #expect(accelerometer.currentGravity == nil)
        let g = try accelerometer.read()
        #expect(isClose(g, c.gravity), "\(c): read \(g), expected \(c.gravity)")
        #expect(accelerometer.currentGravity == g)
        var estimator = DeviceRotationEstimator()
        #expect(estimator.update(g) == c.rotation)
    }

    @Test(arguments: iioCases)
    func findsTheFixtureDevice(_ c: IIOCase) throws {
        let found = try IIOAccelerometer.find(in: c.root)
        #expect(found.path == c.device)
        let named = try IIOAccelerometer.find(named: c.chip, in: c.root)
        #expect(isClose(try named.read(), c.gravity))
    }

    @Test func mountMatrixIsWhatMakesTheSensorUpright() throws {
        let c = iioCases.first { $0.name == "with-mount-matrix" }!
        let accelerometer = try IIOAccelerometer(path: c.device)
        #expect(accelerometer.mountMatrix.description == "0, -1, 0; 1, 0, 0; 0, 0, 1")
        // The chip's own axes, before the matrix, read as a device turned 270°.
        let chipFrame = GravityVector(x: 1020 * scale, y: 6 * scale, z: -25 * scale)
        var raw = DeviceRotationEstimator()
        #expect(raw.update(chipFrame) == 270)
        #expect(isClose(accelerometer.mountMatrix.apply(chipFrame), c.gravity))
        // The transpose (columns read as rows) would turn it upside down instead.
        let transposed = MountMatrix(rows: [SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1)])
        var wrong = DeviceRotationEstimator()
        #expect(wrong.update(transposed.apply(chipFrame)) == 180)
    }

    @Test func mountMatrixParsing() throws {
        let m = try MountMatrix(parsing: "0.866, 0.5, 0; -0.5, 0.866, 0; 0, 0, 1\n")
        #expect(m.rows[1] == SIMD3(-0.5, 0.866, 0))
        #expect(abs(m.determinant - 1) < 0.001)
        #expect(try MountMatrix(parsing: "1,0,0;0,1,0;0,0,-1").determinant == -1)
        for text in ["", "1, 0, 0; 0, 1, 0", "1, 0, 0; 0, 1, 0; 0, 0", "1, 0, 0; 0, x, 0; 0, 0, 1",
                     "1, 0, 0; 0, 1, 0; 0, 0, 1; 0, 0, 0", "1, 0, 0; 0, nan, 0; 0, 0, 1", "1, 0, 0; 2, 0, 0; 0, 0, 1"] {
            #expect(throws: MountMatrix.Invalid.self, "\(text)") { _ = try MountMatrix(parsing: text) }
        }
    }

    @Test func findChoosesByNameOrLabelAndPrefersTheDisplay() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.cleanUp() }
        let fm = FileManager.default
        // iio:device0 is a light sensor, 1 the keyboard half's accelerometer, 2 the screen's.
        try fm.createDirectory(atPath: temporary.file("iio:device0"), withIntermediateDirectories: true)
        try writeAttribute(temporary.file("iio:device0"), "name", "als\n")
        try writeAttribute(temporary.file("iio:device0"), "in_illuminance_raw", "310\n")
        try fm.copyItem(atPath: fixture("iio/upside-down/iio:device0"), toPath: temporary.file("iio:device1"))
        try writeAttribute(temporary.file("iio:device1"), "label", "accel-base\n")
        try fm.copyItem(atPath: fixture("iio/landscape-left/iio:device0"), toPath: temporary.file("iio:device2"))
        try writeAttribute(temporary.file("iio:device2"), "label", "accel-display\n")
        try fm.createDirectory(atPath: temporary.file("trigger0"), withIntermediateDirectories: true)

        #expect(try IIOAccelerometer.find(in: temporary.path).path == temporary.file("iio:device2"))
        #expect(try IIOAccelerometer.find(named: "accel-base", in: temporary.path).path == temporary.file("iio:device1"))
        let display = try IIOAccelerometer.find(named: "accel-display", in: temporary.path)
        #expect(display.label == "accel-display")

        let error = #expect(throws: GravitySourceError.self) { _ = try IIOAccelerometer.find(named: "als", in: temporary.path) }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("iio:device0 (als)") == true)
    }
}

// MARK: - Rotation estimate

/// The reading of a device at rest, standing on its edge, turned `degrees` clockwise.
func gravity(clockwise degrees: Double, tilt: Double = 0) -> GravityVector {
    let a = degrees * Double.pi / 180, t = tilt * Double.pi / 180
    let g = GravityVector.standardGravity
    return GravityVector(x: -sin(a) * cos(t) * g, y: cos(a) * cos(t) * g, z: sin(t) * g)
}

@Suite struct DeviceRotationEstimatorTests {
    @Test func anglesSnapToTheNearestQuarterTurn() {
        for (degrees, expected) in [(0.0, 0), (44, 0), (46, 90), (134, 90), (136, 180), (224, 180), (226, 270), (314, 270), (316, 0), (359, 0)] {
            var estimator = DeviceRotationEstimator()
            #expect(estimator.update(gravity(clockwise: degrees)) == expected, "\(degrees)°")
        }
        for degrees in [0, 90, 180, 270] {
            var estimator = DeviceRotationEstimator()
            #expect(estimator.update(.upright(rotatedClockwise: degrees)) == degrees)
            #expect(abs(DeviceRotationEstimator.clockwiseAngle(of: .upright(rotatedClockwise: degrees)) - Double(degrees)) < 1e-9)
        }
    }

    @Test func aSlowSweepSwitchesPast60UpAndBelow30Down() {
        var estimator = DeviceRotationEstimator()
        var upSwitch: Int?
        for degrees in 0...90 {
            let rotation = estimator.update(gravity(clockwise: Double(degrees)))
            if rotation == 90, upSwitch == nil { upSwitch = degrees }
            #expect(rotation == (degrees > 60 ? 90 : 0), "going up at \(degrees)°")
        }
        #expect(upSwitch == 61)
        var downSwitch: Int?
        for degrees in stride(from: 90, through: 0, by: -1) {
            let rotation = estimator.update(gravity(clockwise: Double(degrees)))
            if rotation == 0, downSwitch == nil { downSwitch = degrees }
            #expect(rotation == (degrees < 30 ? 0 : 90), "coming down at \(degrees)°")
        }
        #expect(downSwitch == 29)
    }

    @Test func hysteresisAlsoHoldsAcross0And360() {
        var estimator = DeviceRotationEstimator()
        #expect(estimator.update(gravity(clockwise: 0)) == 0)
        #expect(estimator.update(gravity(clockwise: 305)) == 0)  // 55° from 0: held
        #expect(estimator.update(gravity(clockwise: 299)) == 270)  // 61° from 0
        #expect(estimator.update(gravity(clockwise: 325)) == 270)  // 55° from 270: held
        #expect(estimator.update(gravity(clockwise: 331)) == 0)
        #expect(estimator.update(gravity(clockwise: 180)) == 180)  // turned over at once
    }

    @Test func faceUpAndFaceDownKeepTheLastRotation() {
        var estimator = DeviceRotationEstimator()
        #expect(estimator.update(.faceUp) == nil)
        #expect(estimator.update(.faceDown) == nil)
        #expect(estimator.rotation == nil)
        #expect(estimator.update(.upright(rotatedClockwise: 90)) == 90)
        #expect(estimator.update(.faceUp) == 90)
        #expect(estimator.update(.faceDown) == 90)
        // Lying nearly flat with its top towards the user: too tilted to count.
        #expect(estimator.update(gravity(clockwise: 0, tilt: 70)) == 90)
        #expect(estimator.update(gravity(clockwise: 180, tilt: -80)) == 90)
        // Tilted back 60° from vertical it still tells.
        #expect(estimator.update(gravity(clockwise: 0, tilt: 60)) == 0)
        // A weak in-plane component (free fall, or a reading of nothing) says nothing either.
        #expect(estimator.update(GravityVector(x: 0, y: -1, z: 0)) == 0)
        #expect(estimator.update(GravityVector(x: 0, y: 0, z: 0)) == 0)
        #expect(estimator.update(GravityVector(x: .nan, y: -9.8, z: 0)) == 0)
    }

    @Test func configurableHysteresis() {
        var estimator = DeviceRotationEstimator(hysteresis: 0)
        #expect(estimator.update(gravity(clockwise: 0)) == 0)
        #expect(estimator.update(gravity(clockwise: 45)) == 0)
        #expect(estimator.update(gravity(clockwise: 46)) == 90)
        #expect(estimator.update(gravity(clockwise: 44)) == 0)
    }
}

// MARK: - Sources

@Suite struct GravitySourceTests {
    @Test func manualSourceDeliversSynchronouslyInOrder() throws {
        let source = ManualGravitySource()
        #expect(source.currentGravity == nil)
        source.setRotation(clockwiseDegrees: 90)  // before start: kept, not delivered
        let log = EventLog<GravityVector>()
        try source.start { log.record($0) }
        #expect(log.entries == [.upright(rotatedClockwise: 90)], "start delivers the current vector")
        let vectors = (0..<20).map { GravityVector(x: Double($0), y: 9.8, z: 0) }
        for (index, vector) in vectors.enumerated() {
            source.set(vector)
            #expect(log.entries.count == index + 2, "delivered before set returned")
        }
        source.setRotation(clockwiseDegrees: 180)
        #expect(log.entries == [.upright(rotatedClockwise: 90)] + vectors + [.upright(rotatedClockwise: 180)])
        #expect(log.all.allSatisfy { $0.thread == log.all[0].thread })
        #expect(source.currentGravity == .upright(rotatedClockwise: 180))

        let error = #expect(throws: GravitySourceError.self) { try source.start { _ in } }
        #expect(error?.code == .alreadyRunning)

        source.stop()
        source.set(.faceUp)
        #expect(log.entries.count == vectors.count + 2, "nothing after stop")
        #expect(source.currentGravity == .faceUp)
    }

    @Test func manualSourceKeepsOrderWhenTheHandlerSetsAnother() throws {
        let source = ManualGravitySource()
        let log = EventLog<Int>()
        try source.start { g in
            log.record(Int(g.x))
            if g.x == 1 { source.set(GravityVector(x: 2, y: 0, z: 0)) }  // queued behind 1
            if g.x == 2 { source.stop() }  // stops from the handler without waiting for itself
        }
        source.set(GravityVector(x: 1, y: 0, z: 0))
        #expect(log.entries == [1, 2])
        source.set(GravityVector(x: 3, y: 0, z: 0))
        #expect(log.entries == [1, 2])
    }

    @Test func manualSourceSerialisesConcurrentSetters() async throws {
        let source = ManualGravitySource()
        let log = EventLog<Int>()
        let inHandler = ConditionLock()
        nonisolated(unsafe) var busy = false
        nonisolated(unsafe) var overlapped = false
        try source.start { g in
            inHandler.withLock { if busy { overlapped = true }; busy = true }
            usleep(200)
            inHandler.withLock { busy = false }
            log.record(Int(g.x))
        }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for n in 0..<50 { source.set(GravityVector(x: Double(thread * 1000 + n), y: 9.8, z: 0)) }
                }
            }
        }
        source.stop()
        let seen = log.entries
        #expect(seen.count == 200)
        #expect(!overlapped, "the handler was entered twice at once")
        for thread in 0..<4 {
            let mine = seen.filter { $0 / 1000 == thread }
            #expect(mine == (0..<50).map { thread * 1000 + $0 }, "each setter's values in its order")
        }
    }

    @Test func accelerometerPollsAndStopsPromptly() throws {
        let c = iioCases[0]
        let accelerometer = try IIOAccelerometer(path: c.device, pollingInterval: .milliseconds(10))
        let log = EventLog<GravityVector>()
        try accelerometer.start { log.record($0) }
        #expect(log.wait(seconds: 5) { $0.count >= 5 }, "five readings within 5 s at 10 ms")
        let error = #expect(throws: GravitySourceError.self) { try accelerometer.start { _ in } }
        #expect(error?.code == .alreadyRunning)
        let before = MonotonicClock.now()
        accelerometer.stop()
        #expect(MonotonicClock.now() - before < 200_000_000, "stop took more than 200 ms")
        let count = log.entries.count
        #expect(log.entries.allSatisfy { isClose($0, c.gravity) })
        #expect(log.all.allSatisfy { $0.thread == "iio accel" })
        usleep(50_000)
        #expect(log.entries.count == count, "no reading after stop")
        #expect(accelerometer.currentGravity.map { isClose($0, c.gravity) } == true)

        // It starts again after stop.
        try accelerometer.start { log.record($0) }
        #expect(log.wait(seconds: 5) { $0.count > count })
        accelerometer.stop()
    }

    @Test func stopDoesNotWaitOutALongInterval() throws {
        let accelerometer = try IIOAccelerometer(path: iioCases[1].device, pollingInterval: .seconds(30))
        let log = EventLog<GravityVector>()
        let started = MonotonicClock.now()
        try accelerometer.start { log.record($0) }
        #expect(log.wait(seconds: 5) { $0.count == 1 }, "the first reading comes at once")
        #expect(log.all[0].time - started < 200_000_000)
        let before = MonotonicClock.now()
        accelerometer.stop()
        #expect(MonotonicClock.now() - before < 200_000_000, "stop waited for the 30 s interval")
        #expect(log.entries.count == 1)
    }

    @Test func releasingTheAccelerometerStopsPolling() throws {
        let log = EventLog<GravityVector>()
        do {
            let accelerometer = try IIOAccelerometer(path: iioCases[0].device, pollingInterval: .milliseconds(5))
            try accelerometer.start { log.record($0) }
            #expect(log.wait(seconds: 5) { $0.count >= 2 })
        }
        let count = log.entries.count
        usleep(50_000)
        #expect(log.entries.count == count, "polling went on after the last reference was released")
    }

    @Test func aFailingPollIsSkippedAndReported() throws {
        let (temporary, device) = try copyOfFixtureTree("portrait")
        defer { temporary.cleanUp() }
        let accelerometer = try IIOAccelerometer(path: device, pollingInterval: .milliseconds(5))
        let log = EventLog<GravityVector>()
        try writeAttribute(device, "in_accel_y_raw", "--\n")
        try accelerometer.start { log.record($0) }
        defer { accelerometer.stop() }
        let deadline = MonotonicClock.now() + 5_000_000_000
        while accelerometer.lastPollingError == nil, MonotonicClock.now() < deadline { usleep(1000) }
        #expect(accelerometer.lastPollingError?.file == "in_accel_y_raw")
        #expect(log.entries.isEmpty)
        try writeAttribute(device, "in_accel_y_raw", "1019\n")
        #expect(log.wait(seconds: 5) { !$0.isEmpty })
        #expect(accelerometer.lastPollingError == nil)
    }
}

// MARK: - Errors

@Suite struct GravityErrorTests {
    @Test func missingDirectory() {
        let error = #expect(throws: GravitySourceError.self) { _ = try IIOAccelerometer(path: "/nonexistent/iio:device7") }
        #expect(error?.code == .notFound)
        #expect(error?.path == "/nonexistent/iio:device7")
        #expect(error?.message.hasPrefix("/nonexistent/iio:device7: ") == true)
        #expect(error?.message.contains("find()") == true)

        let rootError = #expect(throws: GravitySourceError.self) { _ = try IIOAccelerometer.find(in: "/nonexistent/iio") }
        #expect(rootError?.code == .notFound)
        #expect(rootError?.message.contains("/nonexistent/iio") == true)
    }

    @Test func garbledRawFile() throws {
        let (temporary, device) = try copyOfFixtureTree("portrait")
        defer { temporary.cleanUp() }
        try writeAttribute(device, "in_accel_x_raw", "12abc\n")
        let accelerometer = try IIOAccelerometer(path: device)
        let error = #expect(throws: GravitySourceError.self) { _ = try accelerometer.read() }
        #expect(error?.code == .malformed)
        #expect(error?.file == "in_accel_x_raw")
        #expect(error?.message.contains(device + "/in_accel_x_raw") == true)
        #expect(error?.message.contains("'12abc'") == true)

        try writeAttribute(device, "in_accel_x_raw", "")
        let empty = #expect(throws: GravitySourceError.self) { _ = try accelerometer.read() }
        #expect(empty?.message.contains("empty") == true)
    }

    @Test(arguments: [("1, 0, 0; 0, 1, 0\n", "row"), ("1, 0, 0; 0, 1, 0; 0, zero, 1\n", "row 3"),
                      ("1, 0, 0; 1, 0, 0; 0, 0, 1\n", "singular"), ("0, 0, 0; 0, 1, 0; 0, 0, 1\n", "singular")])
    func badMountMatrix(_ text: String, _ reason: String) throws {
        let (temporary, device) = try copyOfFixtureTree("portrait")
        defer { temporary.cleanUp() }
        try writeAttribute(device, "mount_matrix", text)
        let error = #expect(throws: GravitySourceError.self) { _ = try IIOAccelerometer(path: device) }
        #expect(error?.code == .invalidMountMatrix)
        #expect(error?.file == "mount_matrix")
        #expect(error?.message.contains(device + "/mount_matrix") == true)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func missingScaleAndAxis() throws {
        let (temporary, device) = try copyOfFixtureTree("portrait")
        defer { temporary.cleanUp() }
        try FileManager.default.removeItem(atPath: device + "/in_accel_scale")
        let noScale = #expect(throws: GravitySourceError.self) { _ = try IIOAccelerometer(path: device) }
        #expect(noScale?.code == .missingFile)
        #expect(noScale?.file == "in_accel_scale")

        try writeAttribute(device, "in_accel_scale", "0.009576806\n")
        try FileManager.default.removeItem(atPath: device + "/in_accel_z_raw")
        let noZ = #expect(throws: GravitySourceError.self) { _ = try IIOAccelerometer(path: device) }
        #expect(noZ?.code == .missingFile)
        #expect(noZ?.file == "in_accel_z_raw")
    }

    @Test func fileRemovedAfterOpening() throws {
        let (temporary, device) = try copyOfFixtureTree("portrait")
        defer { temporary.cleanUp() }
        let accelerometer = try IIOAccelerometer(path: device)
        try FileManager.default.removeItem(atPath: device + "/in_accel_y_raw")
        let error = #expect(throws: GravitySourceError.self) { _ = try accelerometer.read() }
        #expect(error?.code == .missingFile)
        #expect(error?.file == "in_accel_y_raw")
    }
}
