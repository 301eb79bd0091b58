#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer
import Synchronization

/// What one output of a clock-drift case recorded: its file, the first frame's capture time
/// (CLOCK_MONOTONIC), the drift events and the result.
struct DriftRecording: Sendable {
    var label: String
    var file: String
    var start: UInt64?
    var driftEvents: [Double] = []
    var result: RecordingResult?
}

extension Cases {
    /// Records a minute of vivid's video and a loopback cable running `ppm` fast or slow, while
    /// ``ClickPlayer`` clicks at every whole second of system time into it: through an output
    /// that corrects the clock and, with `uncorrected`, a second one that does not. The host
    /// finds the clicks in each movie and compares them with true time.
    ///
    /// With `loaded`, busy loops on every guest CPU (``GuestLoad``) compete with the recorder
    /// from the first click to the end, the player raised above them: late reads must not look
    /// like a fast crystal, and the uncorrected twin shows what the cable itself did.
    func clockDrift(ppm: Int, subdevice: UInt32, uncorrected: Bool, loaded: Bool = false, _ record: CaseRecord) async throws {
        let value = LoopbackRateShift.value(partsPerMillion: ppm)
        try LoopbackRateShift.set(value, subdevice: subdevice)
        defer { try? LoopbackRateShift.set(100_000, subdevice: subdevice) }
        record.set("shift", value)
        let ppmSet = (100_000 / Double(value) - 1) * 1e6
        record.set("ppm_set", String(format1: ppmSet))
        let player = try ClickPlayer(device: "hw:Loopback,0,\(subdevice)", raised: loaded)
        defer { player.stop() }
        let cpuBefore = GuestCPU.times()
        let load = loaded ? GuestLoad(threads: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) : nil
        defer { load?.stop() }
        // The player's line needs three seconds before its first click; a minute of recording follows.
        try await Task.sleep(for: .seconds(3))
        let camera = try V4L2Camera(path: video, width: 640, height: 480, frameRate: FrameRate(frames: 10), pixelFormat: .yuyv)
        let microphone = try ALSAMicrophone(device: "hw:Loopback,1,\(subdevice)", sampleRate: 48_000, channelCount: 2)
        let labels = uncorrected ? ["corrected", "uncorrected"] : ["corrected"]
        let outputs = labels.map { label in
            let output = MovieFileOutput(encoderSettings: encoder)
            output.audioSettings = .lpcm
            output.audioClockCorrection = label == "corrected"
            output.maxRecordedDuration = .seconds(60)
            return output
        }
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(camera)
            try config.addInput(microphone)
            for output in outputs { try config.addOutput(output) }
        }
        try await session.startRunning()
        let recordings: [DriftRecording]
        do {
            recordings = try await withThrowingTaskGroup(of: DriftRecording.self) { group in
                for (label, output) in zip(labels, outputs) {
                    let file = "\(record.name)-\(label).mov"
                    try await output.startRecording(to: report.path(file))
                    group.addTask { await Self.follow(output, label: label, file: file) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        } catch {
            await session.stopRunning()  // the camera and the cable are left free for the next case
            throw error
        }
        await session.stopRunning()
        load?.stop()
        let cpuAfter = GuestCPU.times()
        let busy = cpuAfter.busy - cpuBefore.busy, idle = cpuAfter.idle - cpuBefore.idle
        let busyPercent = busy + idle > 0 ? 100 * busy / (busy + idle) : 0
        record.set("guest_busy_percent", busyPercent)
        let stats = player.statistics
        let cable = (stats.measuredRate / 48_000 - 1) * 1e6
        record.set("cable_ppm", String(format1: cable))
        // The player's line is the reference every check below leans on: far from the shift
        // set (once -2748 ppm for +1001 on a starved guest), the cable or the player was
        // disturbed, and the run measures nothing; it fails and gets its one more attempt.
        if abs(cable - ppmSet) > max(50, abs(ppmSet) * 0.1) {
            record.fail("the click player measured the cable at \(String(format1: cable)) ppm, the shift says \(String(format1: ppmSet))")
            record.starvation = "the cable measured \(String(format1: cable - ppmSet)) ppm off its shift, guest \(busyPercent)% busy"
        }
        record.set("clicks_played", stats.clicks)
        record.set("underruns", stats.underruns)
        record.expect(stats.error == nil && stats.underruns == 0, "the click player: \(stats.underruns) underruns, \(stats.error ?? "no error")")
        for recording in recordings.sorted(by: { $0.label < $1.label }) { note(recording, record) }
    }

    /// Reads `output`'s events until its recording finishes.
    private static func follow(_ output: MovieFileOutput, label: String, file: String) async -> DriftRecording {
        var recording = DriftRecording(label: label, file: file)
        for await event in output.events {
            switch event {
            case .didStartRecording(_, let time): recording.start = time
            case .didMeasureAudioClockDrift(let ppm): recording.driftEvents.append(ppm)
            case .didFinishRecording(let result):
                recording.result = result
                return recording
            default: break
            }
        }
        return recording
    }

    /// Puts one output's figures on the CASE line and checks what the guest can.
    private func note(_ recording: DriftRecording, _ record: CaseRecord) {
        let prefix = recording.label
        record.set("\(prefix)_file", recording.file)
        record.set("\(prefix)_start_ns", recording.start.map(String.init) ?? "none")
        guard let result = recording.result else { return record.fail("\(prefix): the recording never finished") }
        record.set("\(prefix)_drift", result.audioClockDrift.map { String(format1: $0) } ?? "none")
        record.set("\(prefix)_drift_events", recording.driftEvents.count)
        record.set("\(prefix)_frames", result.frameCount)
        record.set("\(prefix)_dropped", result.droppedFrameCount)
        record.set("\(prefix)_overruns", result.audioOverrunCount)
        record.set("\(prefix)_duration", seconds(result.duration))
        record.expect(result.isPlayable, "\(prefix): not playable: \(result)")
        record.expect(result.isAudioClockCorrected == (prefix == "corrected"), "\(prefix): corrected is \(result.isAudioClockCorrected)")
        record.expect(recording.start != nil, "\(prefix): no start time")
        record.expect(result.audioClockDrift != nil && !recording.driftEvents.isEmpty, "\(prefix): no drift measured")
    }
}

extension String {
    /// `value` with one decimal.
    init(format1 value: Double) {
        let scaled = (value * 10).rounded()
        self = "\(scaled < 0 ? "-" : "")\(Int(abs(scaled)) / 10).\(Int(abs(scaled)) % 10)"
    }
}
