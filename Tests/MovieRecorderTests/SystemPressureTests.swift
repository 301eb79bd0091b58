import Foundation
import Testing
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieContainer
@testable import MovieEncoding
@testable import MovieRecorder

/// A fixture tree of the files the pressure is read from: thermal zones with trip points, PSI
/// and the Raspberry Pi firmware's flags.
struct PressureFixture {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
        try zone(0, type: "cpu-thermal", temperature: 40_000, trips: [("passive", 80_000), ("hot", 95_000), ("critical", 100_000)])
    }

    var root: String { directory.path }

    func write(_ text: String, to path: String) throws {
        let full = directory.file(path)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
    }

    func zone(_ index: Int, type: String, temperature: Int, trips: [(String, Int)] = []) throws {
        let base = "sys/class/thermal/thermal_zone\(index)/"
        try write("\(type)\n", to: base + "type")
        try setTemperature(temperature, zone: index)
        for (number, trip) in trips.enumerated() {
            try write("\(trip.0)\n", to: base + "trip_point_\(number)_type")
            try write("\(trip.1)\n", to: base + "trip_point_\(number)_temp")
        }
    }

    func setTemperature(_ millidegrees: Int, zone: Int = 0) throws {
        try write("\(millidegrees)\n", to: "sys/class/thermal/thermal_zone\(zone)/temp")
    }
}

@Suite struct SystemPressureReadingTests {
    @Test func readingsComeFromAFixtureTree() throws {
        let fixture = try PressureFixture()
        defer { fixture.directory.cleanUp() }
        try fixture.zone(1, type: "gpu", temperature: 51_500)
        try fixture.zone(10, type: "late", temperature: 30_000)
        try fixture.write("some avg10=12.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                          to: "proc/pressure/cpu")
        try fixture.write("throttled=0x50005\n", to: "sys/devices/platform/soc/soc:firmware/get_throttled")
        let readings = PressureReadings.read(root: fixture.root)
        #expect(readings.thermalZones.map(\.name) == ["cpu-thermal", "gpu", "late"], "zones in the order of their numbers")
        #expect(readings.thermalZones.first == PressureReadings.ThermalZone(name: "cpu-thermal", temperature: 40_000, passive: 80_000,
                                                                                hot: 95_000, critical: 100_000))
        #expect(readings.thermalZones[1].passive == nil && readings.thermalZones[1].temperature == 51_500)
        #expect(readings.cpuSomeAverage10 == 12.5)
        #expect(readings.firmwareThrottled == 0x50005)
        // A tree without any of them reads as nothing, not as an error.
        let empty = try TemporaryDirectory()
        defer { empty.cleanUp() }
        #expect(PressureReadings.read(root: empty.path) == PressureReadings())
        // A FIFO where a file should be is skipped without blocking.
        try FileManager.default.removeItem(atPath: fixture.directory.file("proc/pressure/cpu"))
        #expect(mkfifo(fixture.directory.file("proc/pressure/cpu"), 0o600) == 0)
        #expect(PressureReadings.read(root: fixture.root).cpuSomeAverage10 == nil)
    }

    @Test func eachSignalHasItsLevel() {
        let zone = { (temperature: Int) in
            SystemPressureGauge.level(of: .init(name: "z", temperature: temperature, passive: 80_000, hot: 95_000, critical: 100_000))
        }
        #expect([70_000, 75_000, 80_000, 95_000, 100_000].map(zone) == [.nominal, .fair, .serious, .critical, .shutdown])
        // Only a critical trip point: passive 15 °C and hot 5 °C below it.
        let acpi = { (temperature: Int) in SystemPressureGauge.level(of: .init(name: "acpitz", temperature: temperature, critical: 105_000)) }
        #expect([86_000, 90_000, 100_000, 105_000].map(acpi) == [.fair, .serious, .critical, .shutdown])
        #expect(SystemPressureGauge.level(of: .init(name: "bare", temperature: 84_000)) == .fair, "85 °C without trip points")
        let firmware = { (flags: UInt32) in
            SystemPressureGauge.signals(PressureReadings(firmwareThrottled: flags), recordingLag: .nominal)
        }
        #expect(firmware(0x50000) == .nominal, "flags since boot only")
        #expect(firmware(0x1) == SystemPressureState(level: .serious, factors: .peakPower))
        #expect(firmware(0x2) == SystemPressureState(level: .fair, factors: .systemTemperature))
        #expect(firmware(0x4) == SystemPressureState(level: .serious, factors: .systemTemperature))
        let psi = { (average: Double) in SystemPressureGauge.signals(PressureReadings(cpuSomeAverage10: average), recordingLag: .nominal) }
        #expect([10, 40, 80].map(psi).map(\.level) == [.nominal, .fair, .serious])
        #expect(psi(50).factors == .cpuContention)
        let both = SystemPressureGauge.signals(PressureReadings(cpuSomeAverage10: 50), recordingLag: .serious)
        #expect(both == SystemPressureState(level: .serious, factors: [.cpuContention, .recordingLag]), "\(both)")
    }

    @Test func aLevelRisesAtOnceAndFallsAfterTheDelay() {
        var gauge = SystemPressureGauge(fallDelay: 10)
        let serious = SystemPressureState(level: .serious, factors: .systemTemperature)
        #expect(gauge.update(.nominal, at: 0) == nil)
        #expect(gauge.update(serious, at: 1) == serious)
        #expect(gauge.update(.nominal, at: 2) == nil)
        #expect(gauge.update(serious, at: 5) == nil, "back up before the delay: no change, and the wait starts again")
        #expect(gauge.update(.nominal, at: 6) == nil)
        #expect(gauge.update(.nominal, at: 15) == nil)
        #expect(gauge.update(.nominal, at: 16) == .nominal)
        let critical = SystemPressureState(level: .critical, factors: .systemTemperature)
        #expect(gauge.update(critical, at: 20) == critical)
        #expect(gauge.update(serious, at: 21) == nil)
        #expect(gauge.update(serious, at: 31) == serious, "falls to what the signals say")
    }

    @Test func theGovernorStepsEvenlyAndBackWithoutFlapping() {
        var governor = FrameRateGovernor(isEnabled: true)
        #expect((0..<6).allSatisfy { governor.keeps($0) })
        #expect(governor.lagged(at: 1_000_000_000) == .relieve)
        #expect(governor.lagged(at: 1_100_000_000) == nil, "steps are half a second apart")
        #expect(governor.stepUp(at: 1_100_000_000, anchor: 6) == 2)
        #expect((6..<12).map { governor.keeps($0) } == [true, false, true, false, true, false])
        // A full queue steps at once, whatever the spacing, counting from the anchor given.
        #expect(governor.overflowed(at: 1_200_000_000, anchor: 13) == 3)
        #expect((13..<19).map { governor.keeps($0) } == [true, false, false, true, false, false])
        #expect(governor.stepUp(at: 3_000_000_000, anchor: 20) == nil, "one frame in three is the deepest step")
        #expect(governor.overflowed(at: 3_000_000_000, anchor: 20) == nil)
        // A third of a core used at 10 frames a second: 30 fits in 90 % of two cores.
        let cpu = CPUUsage(own: 0.3, others: 0, cores: 2)
        var action: FrameRateGovernor.Action?
        var now: UInt64 = 3_000_000_000
        while action == nil, now < 20_000_000_000 {
            now += 100_000_000
            action = governor.evaluate(at: now, cpu: cpu, floor: 1, sequence: 40)
        }
        #expect(action == .stepDown(divisor: 1), "0.3 cores × 3 fits in 0.9 × 2")
        #expect(now >= 3_000_000_000 + FrameRateGovernor.shortestHold, "not before the hold")
        // Lag soon after the step down doubles the hold.
        #expect(governor.lagged(at: now + 1_000_000_000) == .relieve)
        #expect(governor.hold == 2 * FrameRateGovernor.shortestHold)
        // A floor (heat) holds the divisor however calm it is; busy neighbours leave no room.
        var busy = FrameRateGovernor(isEnabled: true)
        _ = busy.stepUp(at: 0, anchor: 0)
        let crowded = CPUUsage(own: 0.5, others: 1.2, cores: 2)
        let calm = CPUUsage(own: 0.1, others: 0, cores: 2)
        let times = stride(from: UInt64(100_000_000), to: 30_000_000_000, by: 100_000_000)
        #expect(times.compactMap { busy.evaluate(at: $0, cpu: crowded, floor: 1, sequence: 0) }.isEmpty)
        #expect(times.compactMap { busy.evaluate(at: $0 + 30_000_000_000, cpu: calm, floor: 2, sequence: 0) }.isEmpty)
        // Disabled, it only counts.
        var off = FrameRateGovernor(isEnabled: false)
        #expect(off.lagged(at: 1_000_000_000) == nil && off.overflowed(at: 1_000_000_000, anchor: 0) == nil)
    }

    @Test func aQueueWithAReserveTakesFramesUpToItsLimitUnlessTold() {
        let queue = BoundedQueue<Int>(capacity: 6)
        for value in 10..<14 { #expect(queue.offer(value, limit: 4)) }
        #expect(!queue.offer(14, limit: 4), "the usual room is full")
        #expect(queue.offer(14) && queue.offer(15))
        #expect(!queue.offer(16), "the reserve is full too")
        #expect(!queue.offer(16, limit: 10), "a limit above the capacity is the capacity")
        #expect((0..<6).map { _ in queue.pop() } == [10, 11, 12, 13, 14, 15])
        #expect(queue.isEmpty)
    }

    @Test func thinningKeepsTheOldestAndEveryNthAfterIt() {
        let queue = BoundedQueue<Int>(capacity: 6)
        for value in 10..<16 { #expect(queue.offer(value)) }
        #expect(!queue.offer(16))
        #expect(queue.thin { oldest, value in (value - oldest) % 2 == 0 } == 3)
        #expect(queue.waiting == 3)
        #expect(queue.offer(16))
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()] == [10, 12, 14, 16])
        #expect(queue.thin { _, _ in false } == 0, "an empty queue has nothing to thin")
    }

    @Test func liveViewsGiveWayFirstAndComeBackLast() async {
        let coordinator = PressureCoordinator(root: "/nonexistent", interval: 1_000_000_000)
        let steps = coordinator.steps.listen()
        let first = LoadShedControl(), second = LoadShedControl()
        coordinator.register(first)
        coordinator.register(second)
        for _ in 0..<4 { #expect(coordinator.shedExtra(reason: .recordingLag)) }
        #expect(!coordinator.shedExtra(reason: .recordingLag), "both are paused")
        #expect((first.step, second.step) == (2, 2))
        #expect(!first.takesPicture())
        #expect(coordinator.restoreExtra())
        #expect((first.step, second.step) == (2, 1), "the last to give way comes back first")
        #expect([second.takesPicture(), second.takesPicture(), second.takesPicture()].filter { $0 }.count >= 1)
        for _ in 0..<3 { #expect(coordinator.restoreExtra()) }
        #expect(!coordinator.restoreExtra())
        var received: [DegradationStep.Change] = []
        for await step in steps {
            received.append(step.change)
            if received.count == 8 { break }
        }
        #expect(received == [.liveViewFrameRate(divisor: 2), .liveViewPaused(true), .liveViewFrameRate(divisor: 2), .liveViewPaused(true),
                             .liveViewPaused(false), .liveViewFrameRate(divisor: 1), .liveViewPaused(false), .liveViewFrameRate(divisor: 1)])
    }

    @Test func theResultSaysWhichDropsWerePlanned() {
        var result = RecordingResult(path: "/tmp/a.mov", duration: .seconds(1), fileSize: 10, frameCount: 20, droppedFrameCount: 12,
                                     corruptedFrameCount: 0, audioOverrunCount: 0, orientation: .up, rotationChanges: [],
                                     isPlayable: true, error: nil, interruption: nil)
        #expect(result.description.hasSuffix("12 dropped"))
        result.plannedDroppedFrameCount = 10
        #expect(result.unplannedDroppedFrameCount == 2)
        #expect(result.description.hasSuffix("12 dropped (10 planned, 2 unplanned)"), "\(result)")
    }
}

extension RealTimeMetadataTestGroup {
    /// A session reads a fixture tree that heats up and cools down: the levels walk up and
    /// down, and a recording that degrades steps its frame rate evenly and back, or finishes.
    @Suite(.serialized) struct SystemPressureSessionTests {
        /// A running session on the fixture with a degrading recording output.
        func start(_ fixture: PressureFixture) async throws -> (CaptureSession, MovieFileOutput) {
            let session = CaptureSession(pressure: PressureCoordinator(root: fixture.root, interval: 50_000_000, fallDelay: 500_000_000))
            let output = MovieFileOutput()
            output.degradesUnderPressure = true
            try await session.configure { config in
                try config.addInput(TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30)))
                try config.addOutput(output)
            }
            try await session.startRunning()
            return (session, output)
        }

        /// Waits for the next step that `matches`, at most a minute.
        func next(_ steps: inout AsyncStream<DegradationStep>.Iterator, _ matches: (DegradationStep) -> Bool) async -> DegradationStep? {
            let deadline = MonotonicClock.now() + 60_000_000_000
            while MonotonicClock.now() < deadline, let step = await steps.next() {
                if matches(step) { return step }
            }
            return nil
        }

        @Test func aHotMachineStepsTheRecordingEvenlyAndBack() async throws {
            let fixture = try PressureFixture()
            defer { fixture.directory.cleanUp() }
            let (session, output) = try await start(fixture)
            var levels: [SystemPressureState.Level] = []
            let watcher = Task { [updates = session.systemPressureUpdates()] in
                var seen: [SystemPressureState.Level] = []
                for await state in updates where seen.last != state.level { seen.append(state.level) }
                return seen
            }
            var steps = session.degradationSteps().makeAsyncIterator()
            let path = fixture.directory.file("hot.mov")
            try await output.startRecording(to: path)
            func recordOneSecondMore() async {
                let from = output.recordedDuration
                #expect(await eventually { output.recordedDuration >= from + .seconds(1) }, "\(output.recordedDuration) recorded")
            }
            await recordOneSecondMore()
            try fixture.setTemperature(81_000)
            let half = await next(&steps) { $0.change == .recordingFrameRate(divisor: 2) }
            #expect(half?.reason.contains(.systemTemperature) == true && half?.pressure.level == .serious, "\(String(describing: half))")
            await recordOneSecondMore()
            try fixture.setTemperature(40_000)
            let back = await next(&steps) { $0.change == .recordingFrameRate(divisor: 1) }
            #expect(back != nil && back?.isRelief == true, "the recording never came back to its full rate")
            // Written media trails capture by up to a fragment: two seconds more, the level down too.
            await recordOneSecondMore()
            await recordOneSecondMore()
            #expect(await eventually { session.systemPressureState.level == .nominal }, "\(session.systemPressureState)")
            let result = try #require(await output.stopRecording())
            await session.stopRunning()
            watcher.cancel()
            levels = await watcher.value
            #expect(result.isPlayable && result.plannedDroppedFrameCount > 0 && result.unplannedDroppedFrameCount == 0, "\(result)")
            #expect(levels.starts(with: [.nominal, .serious]) && levels.last == .nominal, "levels \(levels)")
            // Every interval one, two or three frames long: never a random hole.
            let times = try packetTimes(path)
            let intervals = zip(times, times.dropFirst()).map { ($1 - $0) * 30 }
            #expect(intervals.allSatisfy { abs($0 - $0.rounded()) < 0.05 && (1...3).contains($0.rounded()) },
                    "intervals in frames: \(intervals.map { String(format: "%.2f", $0) })")
            #expect(intervals.contains { $0.rounded() == 2 })
            #expect(intervals.suffix(15).allSatisfy { $0.rounded() == 1 }, "back at the full rate at the end: \(intervals.suffix(15))")
            print("pressure steps: \(result); levels \(levels)")
        }

        /// Within 5 °C of the critical trip point (past hot): the movie is finished, playable.
        @Test func aCriticalLevelFinishesTheRecording() async throws {
            let fixture = try PressureFixture()
            defer { fixture.directory.cleanUp() }
            let (session, output) = try await start(fixture)
            var steps = session.degradationSteps().makeAsyncIterator()
            let path = fixture.directory.file("shutdown.mov")
            try await output.startRecording(to: path)
            #expect(await eventually { output.recordedDuration >= .seconds(1) })
            try fixture.setTemperature(96_000)
            let finished = await next(&steps) { $0.change == .recordingFinished }
            #expect(finished?.pressure.level == .critical, "\(String(describing: finished))")
            #expect(await eventually { !output.isRecording }, "the recording goes on at a critical level")
            let result = try #require(await output.stopRecording())
            await session.stopRunning()
            #expect(result.isPlayable && result.error?.code == .systemPressureShutdown, "\(result)")
            #expect(try run("ffprobe", ["-v", "error", path]).status == 0)
        }

        /// A 720p30 `medium` recording beside a live view, with a bigger neighbour (an ffmpeg
        /// encode five nice levels up) started and stopped during it: the live view gives way
        /// first, no frame is lost at random (the frames left out are evenly spaced), and the
        /// full rate is back within 10 s of the load going.
        @Test func aLoadThatComesAndGoesCostsEvenStepsOnly() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let session = CaptureSession()
            var settings = VideoEncoderSettings()
            settings.preset = "medium"
            let output = MovieFileOutput(encoderSettings: settings)
            output.degradesUnderPressure = true
            let live = LiveStreamOutput()
            try await session.configure { config in
                try config.addInput(TestPatternSource(width: 1280, height: 720, frameRate: FrameRate(frames: 30)))
                try config.addOutput(output)
                try config.addOutput(live)
            }
            try await session.startRunning()
            let steps = Task { [stream = session.degradationSteps()] in
                var seen: [(DegradationStep, UInt64)] = []
                for await step in stream { seen.append((step, MonotonicClock.now())) }
                return seen
            }
            let path = directory.file("loaded.mov")
            try await output.startRecording(to: path)
            #expect(await eventually { output.recordedDuration >= .seconds(4) })
            // A bigger neighbour: an encode that takes both cores, five nice levels up (root).
            let load = try RunningProgram("/usr/bin/nice", ["-n", "-5", try toolPath("ffmpeg"), "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                                                            "testsrc2=size=1920x1080:rate=60", "-c:v", "libx264", "-preset", "medium", "-f", "null", "-"])
            defer { load.killIfRunning() }
            let loadOn = output.recordedDuration
            #expect(await eventually { output.recordedDuration >= loadOn + .seconds(8) })
            load.killIfRunning()
            let loadOff = output.recordedDuration
            // Ten seconds for the full rate to come back, and two more to see it held.
            #expect(await eventually { output.recordedDuration >= loadOff + .seconds(12) })
            let result = try #require(await output.stopRecording())
            await session.stopRunning()
            steps.cancel()
            let taken = await steps.value
            #expect(result.isPlayable && result.unplannedDroppedFrameCount == 0, "\(result)")
            let times = try packetTimes(path)
            let intervals = zip(times, times.dropFirst()).map { (($1 - $0) * 30).rounded() }
            // One, two or three frames apart: never a hole, not even where a step was taken.
            #expect(intervals.allSatisfy { (1...3).contains($0) }, "random holes: \(intervals.filter { !(1...3).contains($0) })")
            let seconds = { (duration: Duration) in Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
            // The movie is back at every frame from at most 10 s after the load went.
            let lastStep = Array(zip(times, intervals)).last { $0.1 > 1 }?.0 ?? 0
            #expect(lastStep <= seconds(loadOff) + 10, "still stepped at \(lastStep) s, the load gone at \(seconds(loadOff)) s")
            if let first = taken.first {
                #expect(first.0.change == .liveViewFrameRate(divisor: 2), "the live view gives way first: \(taken.map(\.0))")
            }
            print("load came and went: \(result); steps \(taken.map { "\($0.0)" }); load \(seconds(loadOn))–\(seconds(loadOff)) s")
        }

        /// The issue's case: `movrec record` at 1080p30 with x264's `slow` preset, which two
        /// cores cannot sustain (without steps it loses about a third of the frames in holes of
        /// up to half a second). With movrec's default degradation it steps to every second,
        /// then every third frame and loses none at random: every interval in the movie is one,
        /// two or three frames, and the result line says so.
        @Test func anEncoderThatCannotKeepUpStepsEvenlyInMovrec() throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let path = directory.file("slow.mov")
            let result = try run(movrecPath(), ["record", path, "--video", "testsrc", "--size", "1920x1080", "--fps", "30",
                                                "--preset", "slow", "--audio", "none", "--duration", "10", "--quiet"])
            let said = result.output + result.error
            #expect(result.status == 0, "\(said)")
            #expect(said.contains("movrec: under pressure: recording frame rate 1/2"), "\(said)")
            #expect(said.contains(" planned, 0 unplanned)"), "frames lost at random: \(said)")
            let times = try packetTimes(path)
            let intervals = zip(times, times.dropFirst()).map { (($1 - $0) * 30).rounded() }
            #expect(times.count > 100 && intervals.allSatisfy { (1...3).contains($0) },
                    "\(times.count) frames; holes: \(intervals.filter { !(1...3).contains($0) })")
            print("encoder that cannot keep up: \(said.split(separator: "\n").last { $0.contains("dropped") } ?? "")")
        }

        /// The presentation times of the video packets, in seconds, in order.
        func packetTimes(_ path: String) throws -> [Double] {
            let probe = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
            #expect(probe.status == 0, "ffprobe: \(probe.error)")
            return probe.output.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.sorted()
        }
    }
}
