#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer
import Synchronization

/// One named case.
struct DeviceTestCase: Sendable {
    let name: String
    /// Whether a failure while the guest's CPU was starved is worth a second attempt: not for
    /// the disconnect, which the replug must follow.
    var retriesWhenStarved = true
    /// Whether the case runs when none is named: not the benchmarks, which need `-p`.
    var runsByDefault = true
    let run: @Sendable (Cases, CaseRecord) async throws -> Void
}

/// The cases, in the order they run: the disconnect removes /dev/video0 until the replug
/// brings it back, so those two come after every other camera case.
final class Cases {
    static let all: [DeviceTestCase] = [
        DeviceTestCase(name: "discovery") { try $0.discovery($1) },
        DeviceTestCase(name: "record-yuyv") { try await $0.recordFormat(.yuyv, orientation: .up, $1) },
        DeviceTestCase(name: "record-nv12") { try await $0.recordFormat(.nv12, orientation: try VideoOrientation(rotationAngle: 90), $1) },
        DeviceTestCase(name: "record-rgb24") {
            try await $0.recordFormat(.rgb24, orientation: try VideoOrientation(rotationAngle: 270, isMirrored: true), $1)
        },
        DeviceTestCase(name: "record-uyvy") { try await $0.recordFormat(.uyvy, orientation: try VideoOrientation(rotationAngle: 180), $1) },
        DeviceTestCase(name: "controls") { try $0.controls($1) },
        DeviceTestCase(name: "control-events") { try await $0.controlEvents($1) },
        DeviceTestCase(name: "audio-levels") { try await $0.audioLevels($1) },
        DeviceTestCase(name: "photo-zsl") { try await $0.photoZeroShutterLag($1) },
        // A benchmark (Benchmarks/run, section j2): the peers come with run-device-tests -p.
        DeviceTestCase(name: "photo-lag-peers", runsByDefault: false) { try await $0.photoLagBesidePeers($1) },
        DeviceTestCase(name: "record-bright") { try await $0.recordWithControls(brightness: 200, saturation: 255, $1) },
        DeviceTestCase(name: "record-dark") { try await $0.recordWithControls(brightness: 50, saturation: 0, $1) },
        DeviceTestCase(name: "fault-buf-error") { try await $0.bufferError($1) },
        DeviceTestCase(name: "fault-dropped") { try await $0.droppedBuffers($1) },
        DeviceTestCase(name: "fault-wrap-sequence") { try await $0.wrapSequence($1) },
        DeviceTestCase(name: "fault-wrap-timestamp") { try await $0.wrapTimestamp($1) },
        DeviceTestCase(name: "fault-disconnect", retriesWhenStarved: false) { try await $0.disconnect($1) },
        DeviceTestCase(name: "replug") { try await $0.replug($1) },
        // vicodec's stateful encoder (FWHT) fed by vivid: issue 48's memory-to-memory encoder.
        DeviceTestCase(name: "m2m-encode") { try await $0.memoryToMemoryEncode(gop: 10, multiplanar: false, $1) },
        DeviceTestCase(name: "m2m-encode-gop1") { try await $0.memoryToMemoryEncode(gop: 1, multiplanar: false, $1) },
        DeviceTestCase(name: "m2m-encode-mplane") { try await $0.memoryToMemoryEncode(gop: 10, multiplanar: true, $1) },
        DeviceTestCase(name: "m2m-encode-copy") { try await $0.memoryToMemoryEncode(gop: 10, multiplanar: false, imports: false, $1) },
        DeviceTestCase(name: "m2m-import-fallback") { try await $0.memoryToMemoryImportFallback($1) },
        DeviceTestCase(name: "m2m-import-refused") { try await $0.memoryToMemoryImportRefused($1) },
        DeviceTestCase(name: "m2m-yuyv") { try await $0.memoryToMemoryCameraLayout(imports: true, $1) },
        DeviceTestCase(name: "m2m-yuyv-copy") { try await $0.memoryToMemoryCameraLayout(imports: false, $1) },
        DeviceTestCase(name: "m2m-refusals") { try $0.memoryToMemoryRefusals($1) },
        DeviceTestCase(name: "m2m-keyframes") { try await $0.memoryToMemoryKeyframes($1) },
        DeviceTestCase(name: "m2m-resize") { try await $0.memoryToMemoryResize($1) },
        DeviceTestCase(name: "m2m-roundtrip") { try await $0.memoryToMemoryRoundTrip($1) },
        DeviceTestCase(name: "m2m-unplug", retriesWhenStarved: false) { try await $0.memoryToMemoryUnplug($1) },
        // A benchmark, run by Benchmarks/run's section q: what a picture costs on the M2M path beside x264.
        DeviceTestCase(name: "m2m-cost", runsByDefault: false) { try await $0.memoryToMemoryCost($1) },
        DeviceTestCase(name: "alsa-overrun") { try await $0.alsaOverrun($1) },
        // A minute each, on the loopback's second cable with its rate shifted.
        DeviceTestCase(name: "clock-drift-fast") { try await $0.clockDrift(ppm: 1000, subdevice: 1, uncorrected: true, $1) },
        DeviceTestCase(name: "clock-drift-slow") { try await $0.clockDrift(ppm: -1000, subdevice: 1, uncorrected: true, $1) },
        DeviceTestCase(name: "clock-drift-small-fast") { try await $0.clockDrift(ppm: 100, subdevice: 1, uncorrected: false, $1) },
        DeviceTestCase(name: "clock-drift-small-slow") { try await $0.clockDrift(ppm: -100, subdevice: 1, uncorrected: false, $1) },
        // The guest starved from inside: a busy loop on every CPU beside the recorder.
        DeviceTestCase(name: "clock-drift-loaded") { try await $0.clockDrift(ppm: 1000, subdevice: 1, uncorrected: true, loaded: true, $1) },
    ]

    let report: Report
    let frameRate = FrameRate(frames: 25)
    /// x264 settings for the recordings: `ultrafast`, because the guest's CPUs are emulated
    /// (there libx264's default `veryfast` needs the whole CPU for 640x480 at 25 fps and the
    /// recording drops frames, as it should). DEVICE_TESTS_PRESET overrides the preset and
    /// DEVICE_TESTS_X264 adds x264 options ("crf=30,threads=1").
    let encoder: VideoEncoderSettings

    init(report: Report) {
        self.report = report
        var encoder = VideoEncoderSettings()
        encoder.preset = "ultrafast"
        if let preset = getenv("DEVICE_TESTS_PRESET") { encoder.preset = String(cString: preset) }
        if let options = getenv("DEVICE_TESTS_X264") {
            for option in String(cString: options).split(separator: ",") {
                let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { encoder.options[parts[0]] = parts[1] }
            }
        }
        self.encoder = encoder
    }

    var video: String { DeviceTests.videoDevice }

    func camera(_ format: V4L2PixelFormat) throws -> V4L2Camera {
        try V4L2Camera(path: video, width: 640, height: 480, frameRate: frameRate, pixelFormat: format)
    }

    func microphone() throws -> ALSAMicrophone {
        try ALSAMicrophone(device: DeviceTests.captureDevice, sampleRate: 48_000, channelCount: 2)
    }

    /// Records 640x480 at 25 fps with the loopback's tone into `<case>.mov`.
    func record(_ format: V4L2PixelFormat, _ record: CaseRecord, seconds: Int64, orientation: VideoOrientation = .up,
                settle: Duration = .zero, during: (@Sendable () async throws -> Void)? = nil) async throws -> Recording {
        let camera = try camera(format)
        let microphone = try microphone()
        record.set("native", camera.nativePixelFormat)
        record.set("delivered", camera.format.pixelFormat.rawValue)
        record.set("audio", "\(microphone.format.sampleRate)Hz/\(microphone.format.channelCount)ch/\(microphone.periodFrames)f")
        let file = record.name + ".mov"
        let recording = try await Recorder.record(
            camera: camera, microphone: microphone, to: report.path(file), orientation: orientation, encoder: encoder,
            maxDuration: .seconds(seconds), settle: settle, during: during)
        record.note(recording, file: file)
        if let problem = recording.actionError { record.fail("the fault injection failed: \(problem)") }
        return recording
    }

    /// The frame count `seconds` at 25 fps should give, within 5%.
    func expectFrames(_ recording: Recording, seconds: Int64, _ record: CaseRecord) {
        let expected = Double(seconds) * 25
        let frames = recording.result.frameCount
        record.expect(abs(Double(frames) - expected) <= expected * 0.05,
                      "\(frames) frames, expected \(Int(expected)) ± 5%")
    }

    /// A recording that ran to its maximum duration, complete and playable.
    func expectComplete(_ recording: Recording, seconds: Int64, _ record: CaseRecord, frames: Bool = true,
                        earlyEnd: Double = 0.081) {
        let result = recording.result
        record.expect(result.isPlayable, "the movie is not playable: \(result)")
        record.expect(result.error?.code == .maximumDurationReached,
                      "it ended with \(result.error.map { "\($0)" } ?? "no error"), not at the maximum duration")
        record.expect(result.interruption == nil, "interrupted: \(result.interruption.map { "\($0)" } ?? "")")
        // The frame that reaches the limit is left out; the one before it may end up to a frame
        // past the limit when the first frame's timestamp came late.
        let duration = Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) / 1e18
        record.expect(duration >= Double(seconds) - earlyEnd && duration <= Double(seconds) + 0.041,
                      "the movie lasts \(duration) s, not \(seconds) s")
        if frames { expectFrames(recording, seconds: seconds, record) }
    }

    // MARK: Cases

    func discovery(_ record: CaseRecord) throws {
        let cameras = V4L2Camera.devices()
        record.set("cameras", cameras.map(\.path).joined(separator: ","))
        guard let vivid = cameras.first(where: { $0.path == video }) else {
            throw CaseError("V4L2Camera.devices() does not list \(video): \(cameras)")
        }
        record.set("driver", vivid.driver)
        record.set("card", vivid.name)
        record.set("formats", vivid.formats.count)
        record.expect(vivid.driver == "vivid", "driver \(vivid.driver), expected vivid")
        for code in ["YUYV", "NV12", "RGB3", "UYVY"] {
            guard let format = vivid.formats.first(where: { $0.pixelFormat.description == code }) else {
                record.fail("no \(code) format among \(vivid.formats.map(\.pixelFormat.description))")
                continue
            }
            let vga = format.sizes.first { $0.width == 640 && $0.height == 480 }
            record.set("\(code)_640x480", vga.map { $0.frameRates.map(\.description).joined(separator: ",") } ?? "none")
            record.expect(vga?.frameRates.contains(frameRate) == true, "\(code) does not offer 640x480 at 25 fps: \(format)")
        }
        let microphones = ALSAMicrophone.devices()
        record.set("microphones", microphones.map { "\($0.name)(\($0.description))" }.joined(separator: ","))
        record.expect(microphones.contains { $0.description.contains("Loopback") },
                      "ALSAMicrophone.devices() lists no Loopback capture device: \(microphones)")
    }

    func recordFormat(_ format: V4L2PixelFormat, orientation: VideoOrientation, _ record: CaseRecord) async throws {
        let recording = try await self.record(format, record, seconds: 5, orientation: orientation)
        let result = recording.result
        expectComplete(recording, seconds: 5, record)
        record.expect(result.orientation == orientation, "orientation \(result.orientation), expected \(orientation)")
        record.expect(result.droppedFrameCount <= 6, "\(result.droppedFrameCount) frames dropped")
        record.expect(result.corruptedFrameCount == 0, "\(result.corruptedFrameCount) corrupt frames")
        record.expect(result.audioOverrunCount == 0, "\(result.audioOverrunCount) audio overruns")
        // vivid stamps the end of exposure ahead of the moment a buffer can be dequeued: frames
        // that carry the driver's time arrive before it.
        let earliest = recording.camera.lag?.lowerBound ?? 0
        record.expect(earliest <= -10_000_000, "no frame carries vivid's timestamp (each arrived \(earliest / 1_000_000) ms or more after it)")
    }

    /// vivid's controls listed with their ranges; a value set under the configuration lock reads
    /// back; an out-of-range value, a read-only control and a second lock give typed errors.
    func controls(_ record: CaseRecord) throws {
        let camera = try camera(.yuyv)
        let controls = try camera.controls()
        record.set("count", controls.count)
        record.set("keys", controls.map(\.key).joined(separator: ","))
        for key in ["brightness", "contrast", "saturation", "hue"] {
            guard let control = controls.first(where: { $0.key == key }) else {
                record.fail("no \(key) among \(controls.map(\.key))")
                continue
            }
            record.set(key, "\(control.minimum)..\(control.maximum)/\(control.defaultValue)")
        }
        let kinds = Set(controls.map { "\($0.kind)".split(separator: "(").first.map(String.init) ?? "" })
        record.set("kinds", kinds.sorted().joined(separator: ","))
        let configuration = try camera.lockForConfiguration()
        defer { configuration.unlockForConfiguration() }
        try configuration.setValues([(.brightness, 200), (.contrast, 100)])
        record.set("set_brightness", try configuration.value(of: .brightness))
        record.expect(try configuration.value(of: .brightness) == 200, "brightness does not read back 200")
        func code(_ body: () throws -> Void) -> String {
            do { try body(); return "accepted" } catch let error as CameraControlError { return error.code.description } catch { return "\(error)" }
        }
        record.set("out_of_range", code { try configuration.setValue(300, for: .brightness) })
        if let readOnly = controls.first(where: { $0.flags.contains(.readOnly) && $0.isSupported }) {
            record.set("read_only", readOnly.key + ":" + code { try configuration.setValue(readOnly.value ?? 0, forControlNamed: readOnly.key) })
        } else {
            record.fail("no read-only control among \(controls.map(\.key))")
        }
        record.set("second_lock", code { _ = try camera.lockForConfiguration() })
        record.set("unknown", code { try configuration.setValue(1, forControlNamed: "no_such_control") })
        try configuration.setValues([(.brightness, 128), (.contrast, 128)])
    }

    /// A change made through another descriptor (as `v4l2-ctl -c` would) arrives on
    /// `controlChanges()`.
    func controlEvents(_ record: CaseRecord) async throws {
        let changes = try camera(.yuyv).controlChanges()
        let other = try DriverControls(path: video)
        defer { other.close() }
        try other.set("brightness", 77)
        let reader = Task { () -> CameraControlChange? in
            for await change in changes where change.key == "brightness" { return change }
            return nil
        }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(3))
            reader.cancel()
        }
        let change = await reader.value
        deadline.cancel()
        record.set("event", change.map { "\($0.key):\($0.value.map { String($0) } ?? "none")" } ?? "none")
        try other.set("brightness", 128)
    }

    /// The loopback's tone (a 1 kHz sine at 12000 of 32768, both channels) metered by the
    /// session with no output: each channel's average power and held peak after a second.
    func audioLevels(_ record: CaseRecord) async throws {
        let microphone = try microphone()
        let session = CaptureSession()
        try await session.configure { config in try config.addInput(microphone) }
        let updates = session.audioLevelUpdates()
        try await session.startRunning()
        var readings = 0
        var last: [AudioChannelLevel] = []
        for await levels in updates {
            readings += 1
            last = levels
            if readings == 50 { break }
        }
        await session.stopRunning()
        func text(_ values: [Float]) -> String { values.map { String((Double($0) * 1000).rounded() / 1000) }.joined(separator: ",") }
        record.set("average", text(last.map(\.averagePowerLevel)))
        record.set("peak", text(last.map(\.peakHoldLevel)))
        record.set("readings", readings)
    }

    /// Records 2 s of YUYV with brightness and saturation set before the session starts; the
    /// host compares the pictures of the two recordings, the first frame included.
    func recordWithControls(brightness: Int64, saturation: Int64, _ record: CaseRecord) async throws {
        let configuration = try camera(.yuyv).lockForConfiguration()
        try configuration.setValues([(.brightness, brightness), (.saturation, saturation)])
        let recording = try await self.record(.yuyv, record, seconds: 2)
        try configuration.setValues([(.brightness, 128), (.saturation, 128)])
        configuration.unlockForConfiguration()
        record.expect(recording.result.isPlayable, "not playable: \(recording.result)")
    }

    /// `inject_v4l2_buf_flag_error` 2 s in: the next buffer comes back with V4L2_BUF_FLAG_ERROR.
    func bufferError(_ record: CaseRecord) async throws {
        let controls = try DriverControls(path: video)
        defer { controls.close() }
        let recording = try await self.record(.yuyv, record, seconds: 5) {
            try await Task.sleep(for: .seconds(2))
            try controls.set("inject_v4l2_buf_flag_error", 0)
        }
        expectComplete(recording, seconds: 5, record)
        record.expect(recording.result.corruptedFrameCount >= 1, "no corrupt frame was counted")
    }

    /// `percentage_of_dropped_buffers` = 20 for 8 s: about a fifth of the driver's sequence
    /// numbers never arrive.
    func droppedBuffers(_ record: CaseRecord) async throws {
        let controls = try DriverControls(path: video)
        defer { controls.close() }
        try controls.set("percentage_of_dropped_buffers", 20)
        defer { try? controls.set("percentage_of_dropped_buffers", 0) }
        let recording = try await self.record(.yuyv, record, seconds: 8)
        let result = recording.result
        // The driver may drop the last few frames before the limit too (six in a row at 20%:
        // about 6 in 100,000), so the movie may end up to a quarter second early.
        expectComplete(recording, seconds: 8, record, frames: false, earlyEnd: 0.25)
        let total = result.frameCount + result.droppedFrameCount
        let percent = total == 0 ? 0 : Double(result.droppedFrameCount) * 100 / Double(total)
        record.set("dropped_percent", Int(percent.rounded()))
        record.expect(abs(percent - 20) <= 8, "\(result.droppedFrameCount) of \(total) frames dropped (\(percent)%), expected 20% ± 8")
        // vivid skips sequence numbers of its own when its capture thread falls behind on the
        // emulated CPU, and those gaps look exactly like the injected ones. Too many drops that
        // are all the driver's (the pipeline counted no more than it skipped) mean the driver
        // was starved, not that the library miscounted: such a run gets its one more attempt.
        if percent > 28, result.droppedFrameCount <= recording.camera.droppedReported {
            record.starvation = record.starvation
                ?? "the driver skipped \(recording.camera.droppedReported) sequence numbers with 20% asked for: its thread fell behind"
        }
        record.expect(abs(Double(total) - 200) <= 10, "\(total) frames delivered or dropped in 8 s, expected 200 ± 5%")
        record.expect(recording.camera.gapMismatches == 0,
                      "after \(recording.camera.gapMismatches) frames the drops reported differ from the sequence gap")
    }

    /// `wrap_sequence_number`: the driver's sequence starts at 2^32 − 128 and wraps 5.12 s after
    /// streaming starts, which the 2 s settle puts in the middle of the recording.
    func wrapSequence(_ record: CaseRecord) async throws {
        let controls = try DriverControls(path: video)
        defer { controls.close() }
        try controls.set("wrap_sequence_number", 1)
        defer { try? controls.set("wrap_sequence_number", 0) }
        let recording = try await self.record(.yuyv, record, seconds: 5, settle: .seconds(2))
        expectComplete(recording, seconds: 5, record)
        let camera = recording.camera
        record.expect(camera.sequenceWraps == 1, "the sequence number wrapped \(camera.sequenceWraps) times, expected once")
        // What the camera reports at the wrap must be what the driver skipped there (nothing,
        // unless its thread fell behind just then), and so everywhere else; the pipeline itself
        // drops nothing beyond what the camera reported.
        if let wrap = camera.wrapGap {
            record.expect(Int64(wrap.reported) == wrap.skipped && wrap.skipped < 8,
                          "the wrap counted as \(wrap.reported) dropped frames where the driver skipped \(wrap.skipped)")
        }
        record.expect(camera.gapMismatches == 0, "after \(camera.gapMismatches) frames the drops reported differ from the sequence gap")
        record.expect(recording.result.droppedFrameCount <= camera.droppedReported + 2,
                      "\(recording.result.droppedFrameCount) frames dropped, the driver skipped \(camera.droppedReported)")
    }

    /// `wrap_timestamp` = "64 Bit": driver timestamps start 16 s before 2^63 ns and wrap to
    /// negative 16 s after streaming starts, which the 13 s settle puts inside the recording.
    func wrapTimestamp(_ record: CaseRecord) async throws {
        let controls = try DriverControls(path: video)
        defer { controls.close() }
        try controls.set("wrap_timestamp", 1)
        defer { try? controls.set("wrap_timestamp", 0) }
        let recording = try await self.record(.yuyv, record, seconds: 5, settle: .seconds(13))
        expectComplete(recording, seconds: 5, record)
        record.expect(recording.camera.timestampRegressions == 0, "frame timestamps went backwards \(recording.camera.timestampRegressions) times")
        let earliest = recording.camera.lag?.lowerBound ?? -1
        record.expect(earliest >= 0, "a frame kept the wrapped driver timestamp (\(earliest / 1_000_000) ms from its arrival) instead of its arrival time")
    }

    /// `disconnect` 2 s in: vivid unregisters the node as if the camera were unplugged.
    func disconnect(_ record: CaseRecord) async throws {
        let controls = try DriverControls(path: video)
        defer { controls.close() }
        let recording = try await self.record(.yuyv, record, seconds: 5) {
            try await Task.sleep(for: .seconds(2))
            try controls.set("disconnect", 0)
        }
        let result = recording.result
        record.set("error", result.error.map { "\($0.code)" } ?? "none")
        record.set("camera_saw", recording.camera.interruption ?? "nothing")
        record.expect(result.interruption != nil, "the result has no interruption")
        record.expect(result.error?.code == .deviceLost, "ended with \(result.error.map { "\($0)" } ?? "no error"), expected deviceLost")
        record.expect(result.isPlayable, "the movie is not playable: \(result)")
        record.expect((35...65).contains(result.frameCount), "\(result.frameCount) frames before a disconnect 2 s in")
        record.expect(recording.sessionEvents.contains("interrupted"), "the session reported no interruption: \(recording.sessionEvents)")
    }

    /// Unloads and reloads vivid, as pulling the camera out and plugging it back in; then a new
    /// session records 2 s.
    func replug(_ record: CaseRecord) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let status = runProgram(["/bin/sh", "/usr/bin/rig-replug", "vivid", video])
        record.set("replug_s", seconds(clock.now - started))
        guard status == 0 else { throw CaseError("rig-replug vivid exited with status \(status)") }
        let recording = try await self.record(.yuyv, record, seconds: 2)
        expectComplete(recording, seconds: 2, record)
    }

    /// A capture handler that stalls 1 s once: the half-second ALSA buffer overflows, the microphone
    /// reports `.overrun`, restarts, and buffers keep coming.
    func alsaOverrun(_ record: CaseRecord) async throws {
        let microphone = try microphone()
        record.set("buffer_ms", microphone.bufferFrames * 1000 / Int(microphone.format.sampleRate))
        let probe = OverrunProbe(stallAfter: 10, stall: 1_000_000, format: microphone.format)
        try microphone.start { probe.note($0) }
        try await Task.sleep(for: .seconds(3))
        microphone.stop()
        let seen = probe.seen
        record.set("buffers_before", seen.buffersBefore)
        record.set("overruns", seen.overruns)
        record.set("buffers_after", seen.buffersAfter)
        record.set("gap_ms", seen.gap / 1_000_000)
        let hertz = seen.samplesAfter.count < 4800 ? 0 : zeroCrossingFrequency(seen.samplesAfter, rate: Double(microphone.format.sampleRate))
        record.set("tone_after_hz", Int(hertz.rounded()))
        record.expect(seen.overruns >= 1, "no overrun was reported")
        record.expect(seen.buffersAfter >= 50, "only \(seen.buffersAfter) buffers after the overrun, expected 1 s or more")
        record.expect(abs(hertz - DeviceTests.toneFrequency) <= 20, "after the overrun the tone measures \(hertz) Hz")
        record.expect(seen.interruption == nil, "interrupted: \(seen.interruption ?? "")")
    }
}

/// Counts an ALSA source's events around one deliberate stall of its handler.
final class OverrunProbe: Sendable {
    struct Seen {
        var buffersBefore = 0
        var overruns = 0
        var buffersAfter = 0
        var lastTimestampBefore: UInt64 = 0
        /// From the end of the last buffer before the overrun to the first one after.
        var gap: UInt64 = 0
        var samplesAfter: [Int16] = []
        var interruption: String?
    }

    private let state = Mutex(Seen())
    private let stallAfter: Int
    private let stall: UInt32
    private let format: PCMFormat

    init(stallAfter: Int, stall: UInt32, format: PCMFormat) {
        self.stallAfter = stallAfter
        self.stall = stall
        self.format = format
    }

    var seen: Seen { state.withLock { $0 } }

    func note(_ event: AudioSourceEvent) {
        switch event {
        case .buffer(let buffer):
            let stallNow: Bool = state.withLock { s in
                if s.overruns == 0 {
                    s.buffersBefore += 1
                    s.lastTimestampBefore = buffer.timestamp + UInt64(buffer.frameCount) * 1_000_000_000 / UInt64(format.sampleRate)
                    return s.buffersBefore == stallAfter
                }
                if s.buffersAfter == 0 { s.gap = buffer.timestamp &- s.lastTimestampBefore }
                s.buffersAfter += 1
                if s.samplesAfter.count < Int(format.sampleRate) {
                    let stride = format.bytesPerFrame
                    buffer.bytes.withUnsafeBytes { raw in
                        for frame in 0..<buffer.frameCount {
                            s.samplesAfter.append(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: frame * stride, as: Int16.self)))
                        }
                    }
                }
                return false
            }
            if stallNow { usleep(stall) }
        case .overrun:
            state.withLock { $0.overruns += 1 }
        case .interrupted(let reason):
            state.withLock { $0.interruption = reason.message }
        case .resumedFromSuspend, .ended:
            break
        }
    }
}

/// A tone's frequency from its zero crossings: two per cycle.
func zeroCrossingFrequency(_ samples: [Int16], rate: Double) -> Double {
    var crossings = 0
    for i in 1..<samples.count where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
    return Double(crossings) / 2 / (Double(samples.count) / rate)
}

/// Runs a program with the guest's PATH and `environment` and waits for it; returns its exit
/// status (or 128 + the signal, or -1 when it could not start). Its output goes to ours, or
/// to the file `log`, standard error too.
func runProgram(_ arguments: [String], environment: [String] = [], log: String? = nil) -> Int32 {
    fflush(nil)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let log {
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
    }
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = (["PATH=/usr/bin:/usr/sbin"] + environment).map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, &envp) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}
