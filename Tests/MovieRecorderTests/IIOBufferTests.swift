import Foundation
import Testing
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieRecorder

/// Reading an IIO device's buffer: the scan layout the kernel uses, decoding scans split across
/// reads, and the fallback to polling with a reason when the buffer cannot be used.
@Suite struct IIOBufferTests {
    /// mma8452's axes (be:s14/16>>2) at indexes 0–2 and a 64-bit timestamp at 3: the timestamp
    /// is aligned to 8 bytes, so a scan is 16 bytes with 2 of padding.
    @Test func theLayoutAlignsEachElementToItsStorage() throws {
        let axis = try #require(IIOScanLayout.ElementType(parsing: "be:s14/16>>2"))
        let stamp = try #require(IIOScanLayout.ElementType(parsing: "le:s64/64>>0"))
        let layout = IIOScanLayout(elements: [
            .init(name: "in_timestamp", index: 3, type: stamp), .init(name: "in_accel_z", index: 2, type: axis),
            .init(name: "in_accel_x", index: 0, type: axis), .init(name: "in_accel_y", index: 1, type: axis),
        ])
        #expect(layout.elements.map(\.name) == ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(layout.elements.map(\.offset) == [0, 2, 4, 8])
        #expect(layout.scanBytes == 16)
        // A 12-bit value right-justified in 32 bits, little-endian, after a 16-bit channel.
        let wide = try #require(IIOScanLayout.ElementType(parsing: "le:u12/32>>0"))
        let mixed = IIOScanLayout(elements: [.init(name: "a", index: 0, type: axis), .init(name: "b", index: 1, type: wide)])
        #expect(mixed.elements.map(\.offset) == [0, 4] && mixed.scanBytes == 8)
    }

    /// Types that are not of the kernel's form are refused, not guessed.
    @Test func malformedTypesAreRefused() {
        for text in ["", "le", "xe:s12/16>>4", "le:q12/16", "le:s12/12>>0", "le:s17/16>>0", "le:s12/16>>8", "le:s12/16>4"] {
            #expect(IIOScanLayout.ElementType(parsing: text) == nil, "\(text)")
        }
        #expect(IIOScanLayout.ElementType(parsing: "le:s12/16")?.shift == 0)
        #expect(IIOScanLayout.ElementType(parsing: "le:s16/16X2>>0")?.repeatCount == 2)
    }

    /// Signed values sign-extend from their bits after the shift, in either byte order.
    @Test func valuesDecodeWithShiftSignAndOrder() throws {
        let big = try #require(IIOScanLayout.ElementType(parsing: "be:s14/16>>2"))
        let little = try #require(IIOScanLayout.ElementType(parsing: "le:s12/16>>4"))
        let unsigned = try #require(IIOScanLayout.ElementType(parsing: "le:u16/16>>0"))
        for value in [-8192, -60, -1, 0, 1, 420, 8191] {
            let word = UInt16(truncatingIfNeeded: value << 2)
            let bytes = [UInt8(word >> 8), UInt8(word & 0xFF)]
            #expect(bytes.withUnsafeBytes { big.value(in: $0, at: 0) } == Int64(value))
        }
        let word = UInt16(truncatingIfNeeded: -5 << 4)
        #expect([UInt8(word & 0xFF), UInt8(word >> 8)].withUnsafeBytes { little.value(in: $0, at: 0) } == -5)
        #expect([UInt8(0xFF), UInt8(0xFF)].withUnsafeBytes { unsigned.value(in: $0, at: 0) } == 65535)
    }

    /// Scans cut anywhere by reads come out whole, once each; their times keep the device's
    /// spacing on the monotonic clock, and never run ahead of the read.
    @Test func scansSplitAcrossReadsKeepTheirSpacing() throws {
        var reader = try #require(IIOScanReader(layout: BufferedDevice.layout))
        let scans = (0..<10).flatMap { BufferedDevice.scan(x: $0, y: 128, z: -4, stamp: 5_000_000_000 + Int64($0) * 1_000_000) }
        var samples: [IIOScanReader.Sample] = []
        samples += reader.samples(from: scans[0..<7], readAt: 900_000_000)
        #expect(samples.isEmpty)
        samples += reader.samples(from: scans[7..<90], readAt: 900_000_000)
        samples += reader.samples(from: scans[90...], readAt: 905_000_000)
        #expect(samples.map(\.x) == Array(0..<10) && samples.allSatisfy { $0.y == 128 && $0.z == -4 })
        let times = samples.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 1_000_000 }, "\(times)")
        #expect(times.last! <= 905_000_000)
    }

    /// A device without a buffer, one whose buffer is taken, one with no character device and
    /// one with no trigger to set are polled, and `readingMethod` says why.
    @Test func aBufferThatCannotBeUsedFallsBackToPollingWithAReason() throws {
        let cases: [(String, (BufferedDevice) throws -> Void, String)] = [
            ("bump", { _ in }, "no buffer"),
            ("bump-buffered", { try BufferedDevice.write("1", $0.device + "/buffer/enable") }, "already"),
            ("bump-buffered", { try FileManager.default.removeItem(atPath: $0.fifo) }, "cannot open"),
            ("bump-buffered", { try FileManager.default.removeItem(atPath: $0.root + "/trigger0") }, "no trigger"),
        ]
        for (tree, spoil, reason) in cases {
            let device = try BufferedDevice(tree)
            defer { device.cleanUp() }
            try spoil(device)
            let accelerometer = try IIOAccelerometer(path: device.device, pollingInterval: .milliseconds(50), bufferDevice: device.fifo)
            try accelerometer.start { _ in }
            accelerometer.stop()
            guard case .polling(let why) = accelerometer.readingMethod else {
                Issue.record("\(tree): \(String(describing: accelerometer.readingMethod))")
                continue
            }
            #expect(why.contains(reason), "\(tree): \(why)")
            if tree != "bump" {
                #expect(try BufferedDevice.read(device.device + "/scan_elements/in_accel_x_en") == "0", "nothing stays changed")
            }
        }
    }
}

/// A copy of a fixture tree with a FIFO standing in for the buffer's character device.
struct BufferedDevice {
    let directory: TemporaryDirectory
    var root: String { directory.path }
    var device: String { directory.file("iio:device0") }
    var fifo: String { directory.file("dev-iio:device0") }

    static let layout: IIOScanLayout = {
        let axis = IIOScanLayout.ElementType(parsing: "be:s14/16>>2")!
        let stamp = IIOScanLayout.ElementType(parsing: "le:s64/64>>0")!
        return IIOScanLayout(elements: ["in_accel_x", "in_accel_y", "in_accel_z"].enumerated().map {
            .init(name: $1, index: $0, type: axis)
        } + [.init(name: "in_timestamp", index: 3, type: stamp)])
    }()

    init(_ tree: String) throws {
        directory = try TemporaryDirectory()
        for entry in try FileManager.default.contentsOfDirectory(atPath: fixture("iio/" + tree)) where !entry.hasPrefix("replay") {
            try FileManager.default.copyItem(atPath: fixture("iio/\(tree)/\(entry)"), toPath: directory.file(entry))
        }
        #expect(mkfifo(fifo, 0o600) == 0)
    }

    func cleanUp() { directory.cleanUp() }

    /// One scan as mma8452 lays it out: three big-endian 14-bit values shifted left by 2, two
    /// bytes of padding, a little-endian 64-bit timestamp.
    static func scan(x: Int, y: Int, z: Int, stamp: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [x, y, z] {
            let word = UInt16(truncatingIfNeeded: value << 2)
            bytes += [UInt8(word >> 8), UInt8(word & 0xFF)]
        }
        bytes += [0, 0]
        bytes += withUnsafeBytes(of: stamp.littleEndian) { Array($0) }
        return bytes
    }

    static func write(_ text: String, _ path: String) throws {
        try (text + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension RealTimeMetadataTestGroup {
    /// The impact detector on a real `IIOAccelerometer`, in real time: polling sysfs files that
    /// a replay updates one axis at a time, and reading whole scans from a buffer.
    @Suite(.serialized) struct ImpactReadingTests {
        /// 50 bumps of 3.28 g (held 150 ms, as a crash's pulse lasts) written into the sysfs tree
        /// with the axes 0–8 ms apart (so some polls are torn and some updates fall within one
        /// poll), polled every 10 ms: each is found once, its size within 10 %; a nudge of
        /// 1.26 g after every fifth is never.
        @Test func tornPolledBumpsAreFoundFiftyTimesOutOfFifty() async throws {
            let device = try BufferedDevice("bump")
            defer { device.cleanUp() }
            let accelerometer = try IIOAccelerometer(path: device.device, pollingInterval: .milliseconds(10), bufferDevice: nil)
            let detector = ImpactDetector(source: accelerometer, threshold: 2.5, holdOff: .milliseconds(500), window: .milliseconds(100))
            let impacts = LockedValue<[ImpactDetector.Impact]>([])
            try detector.start { impact in impacts.withLock { $0.append(impact) } }
            defer { detector.stop() }
            var random = PowerCutTests.SplitMix(state: 4_350)
            let rest = (2, 128, -4), bump = (180, 420, 240), rebound = (-60, 20, 90), nudge = (80, 250, 60)
            for replay in 0..<50 {
                try await Self.write(rest, into: device.device, hold: 100, using: &random)
                try await Self.write(bump, into: device.device, hold: 150, using: &random)
                try await Self.write(rebound, into: device.device, hold: 40, using: &random)
                try await Self.write(rest, into: device.device, hold: 0, using: &random)
                let seen = await eventually(deadline: .seconds(10)) { impacts.withLock { $0.count } > replay }
                #expect(seen, "replay \(replay): no impact")
                // Past the hold-off, counted from the impact the test has seen.
                try await Task.sleep(for: .milliseconds(600))
                if replay % 5 == 4 {
                    try await Self.write(nudge, into: device.device, hold: 60, using: &random)
                    try await Self.write(rest, into: device.device, hold: 300, using: &random)
                }
            }
            let changes = impacts.withLock { $0.map(\.change) }
            let size = ImpactDetectorTests.bumpSize
            #expect(changes.count == 50, "\(changes)")
            #expect(changes.allSatisfy { abs($0 - size) <= 0.1 * size }, "sizes \(changes), not within 10 % of \(size) g")
            #expect(accelerometer.readingMethod == .polling(reason: "no buffer device was given"))
        }

        /// Writes one reading into the tree an axis at a time, each file put in place whole, the
        /// axes 0–8 ms apart; then holds it `hold` ms.
        static func write(_ counts: (Int, Int, Int), into device: String, hold: Int,
                          using random: inout PowerCutTests.SplitMix) async throws {
            for (axis, value) in zip(["x", "y", "z"], [counts.0, counts.1, counts.2]) {
                let path = device + "/in_accel_\(axis)_raw"
                try "\(value)\n".write(toFile: path + ".new", atomically: false, encoding: .utf8)
                guard rename(path + ".new", path) == 0 else { throw POSIXError(.EIO) }
                let gap = Int.random(in: 0...8, using: &random)
                if gap > 0 && axis != "z" { try await Task.sleep(for: .milliseconds(gap)) }
            }
            if hold > 0 { try await Task.sleep(for: .milliseconds(hold)) }
        }

        /// A buffered device (a FIFO standing in for /dev/iio:device0) fed whole scans at
        /// 1 kHz with timestamps on another clock: the accelerometer reads the buffer, 10 bumps
        /// of 30 ms are 10 impacts of 3.28 g (within 2 %), and stopping puts the trigger, the
        /// channels and the buffer back as they were.
        @Test func aBufferedDeviceDeliversWholeSamples() async throws {
            let device = try BufferedDevice("bump-buffered")
            defer { device.cleanUp() }
            let writer = open(device.fifo, O_RDWR | O_CLOEXEC)
            #expect(writer >= 0)
            defer { close(writer) }
            let accelerometer = try IIOAccelerometer(path: device.device, pollingInterval: .milliseconds(100), bufferDevice: device.fifo)
            let detector = ImpactDetector(source: accelerometer, threshold: 2.5, holdOff: .milliseconds(500), window: .milliseconds(100))
            let impacts = LockedValue<[ImpactDetector.Impact]>([])
            try detector.start { impact in impacts.withLock { $0.append(impact) } }
            #expect(accelerometer.readingMethod == .buffer(device: device.fifo))
            #expect(try BufferedDevice.read(device.device + "/buffer/enable") == "1")
            #expect(try BufferedDevice.read(device.device + "/trigger/current_trigger") == "mma8451-dev0")
            #expect(try BufferedDevice.read(device.device + "/scan_elements/in_timestamp_en") == "1")
            try await runOnDedicatedThread(name: "fifo writer") { try Self.feed(writer, bumps: 10) }
            let found = await eventually(deadline: .seconds(10)) { impacts.withLock { $0.count } >= 10 }
            detector.stop()
            let changes = impacts.withLock { $0.map(\.change) }
            let size = ImpactDetectorTests.bumpSize
            #expect(found && changes.count == 10, "\(changes)")
            #expect(changes.allSatisfy { abs($0 - size) <= 0.02 * size }, "\(changes)")
            #expect(accelerometer.currentGravity.map { abs($0.y - 128 * ImpactDetectorTests.scale) < 0.01 } == true)
            #expect(try BufferedDevice.read(device.device + "/buffer/enable") == "0")
            #expect(try BufferedDevice.read(device.device + "/trigger/current_trigger") == "")
            #expect(try BufferedDevice.read(device.device + "/scan_elements/in_accel_y_en") == "0")
        }

        /// Writes `bumps` bumps (300 ms at rest, 30 ms of bump, 20 ms of rebound, 650 ms at
        /// rest) as 1 kHz scans, ten at a time every 10 ms; a late wake writes more at once,
        /// as a device's FIFO would hold more.
        static func feed(_ descriptor: Int32, bumps: Int) throws {
            var scans: [[UInt8]] = []
            let base: Int64 = 1_764_000_000_000_000_000  // a wall-clock timestamp, not the monotonic clock
            for _ in 0..<bumps {
                for (counts, count) in [((2, 128, -4), 300), ((180, 420, 240), 30), ((-60, 20, 90), 20), ((2, 128, -4), 650)] {
                    for _ in 0..<count {
                        scans.append(BufferedDevice.scan(x: counts.0, y: counts.1, z: counts.2, stamp: base + Int64(scans.count) * 1_000_000))
                    }
                }
            }
            let start = MonotonicClock.now()
            var sent = 0
            while sent < scans.count {
                let due = min(scans.count, Int((MonotonicClock.now() - start) / 1_000_000) + 1)
                let bytes = scans[sent..<max(due, sent + 1)].flatMap { $0 }
                guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
                    throw POSIXError(.EIO)
                }
                sent = max(due, sent + 1)
                usleep(10_000)
            }
        }
    }
}
