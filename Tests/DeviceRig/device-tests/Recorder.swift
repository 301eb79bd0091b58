#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer
import Synchronization

/// What a camera delivered, seen from between the camera and the session.
struct CameraObservation: Sendable {
    var firstSequence: UInt64?
    var lastSequence: UInt64?
    /// Times the driver's sequence number went down (a 32-bit wrap).
    var sequenceWraps = 0
    /// Frames the camera reported lost (the driver's sequence gaps).
    var droppedReported = 0
    /// Frames reported lost or corrupt since the last frame delivered.
    var reportedSinceFrame = 0
    /// Frames after which that report differs from the gap in the driver's sequence numbers,
    /// worked out here in 64-bit arithmetic (across the 32-bit wrap), not as the camera does.
    var gapMismatches = 0
    /// At the (last) wrap: the sequence numbers skipped, and the frames the camera reported for them.
    var wrapGap: (skipped: Int64, reported: Int)?
    var interruption: String?
    /// The largest distance of a frame interval from the nominal one, in nanoseconds.
    var worstIntervalError: UInt64 = 0
    /// Frames whose timestamp went backwards.
    var timestampRegressions = 0
    var lastTimestamp: UInt64?
    /// The least and most time from a frame's timestamp to its delivery, in nanoseconds
    /// (negative when the driver stamps the end of exposure ahead of time).
    var lag: ClosedRange<Int64>?

    mutating func note(_ event: VideoSourceEvent, nominalInterval: UInt64) {
        switch event {
        case .frame(let frame):
            let delay = Int64(bitPattern: MonotonicClock.now() &- frame.timestamp)
            lag = lag.map { min($0.lowerBound, delay)...max($0.upperBound, delay) } ?? delay...delay
            if firstSequence == nil { firstSequence = frame.sequenceNumber }
            if let last = lastSequence {
                let wrapped = frame.sequenceNumber < last
                let skipped = Int64(frame.sequenceNumber) - Int64(last) + (wrapped ? 1 << 32 : 0) - 1
                if skipped != Int64(reportedSinceFrame) { gapMismatches += 1 }
                if wrapped {
                    sequenceWraps += 1
                    wrapGap = (skipped, reportedSinceFrame)
                }
            }
            reportedSinceFrame = 0
            lastSequence = frame.sequenceNumber
            if let last = lastTimestamp {
                if frame.timestamp < last {
                    timestampRegressions += 1
                } else {
                    let interval = frame.timestamp - last
                    // Only neighbouring frames: a gap of dropped frames is not jitter.
                    if interval < nominalInterval * 3 / 2 {
                        worstIntervalError = max(worstIntervalError, interval > nominalInterval ? interval - nominalInterval : nominalInterval - interval)
                    }
                }
            }
            lastTimestamp = frame.timestamp
        case .dropped(let count):
            droppedReported += count
            reportedSinceFrame += count
        case .interrupted(let reason):
            interruption = reason.message
        case .corrupted:
            reportedSinceFrame += 1
        case .ended:
            break
        }
    }
}

/// A ``V4L2Camera`` passed through unchanged, counting what it delivers: the driver's sequence
/// numbers and timestamps are not in a ``RecordingResult``.
final class ObservedCamera: VideoSource {
    let camera: V4L2Camera
    private let observation = Mutex(CameraObservation())

    init(_ camera: V4L2Camera) { self.camera = camera }

    var name: String { camera.name }
    var format: VideoFormat { camera.format }
    var isLive: Bool { camera.isLive }
    var observed: CameraObservation { observation.withLock { $0 } }

    func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {
        let rate = camera.format.frameRate
        let nominal = 1_000_000_000 * UInt64(rate.seconds) / UInt64(rate.frames)
        try camera.start { [self] event in
            self.observation.withLock { $0.note(event, nominalInterval: nominal) }
            handler(event)
        }
    }

    func stop() { camera.stop() }
}

/// One recording through the public API: a session with the camera (and a microphone), a
/// MovieFileOutput with a maximum duration, and what happened.
struct Recording: Sendable {
    var result: RecordingResult
    var camera: CameraObservation
    var sessionEvents: [String]
    /// From startRecording returning to the finished recording.
    var wallTime: Duration
    /// What the `during` action threw, if anything.
    var actionError: String?
    /// The share of the guest's CPU time that was busy while recording, in percent.
    var busyPercent: Int
    /// CPU time of the library's threads (movrec-encode, movrec-v4l2...) in clock ticks (1/100 s),
    /// shortly before the recording's end.
    var threadTicks: [String: Int]
}

enum Recorder {
    /// Records `camera` (and `microphone`) into `path` until the output stops by itself at
    /// `maxDuration` or on an interruption; `during` runs alongside, started once recording has.
    ///
    /// - Parameters:
    ///   - settle: how long the session runs before recording starts.
    ///   - timeout: how long to wait for the output to finish before stopping it.
    static func record(camera: V4L2Camera, microphone: ALSAMicrophone?, to path: String,
                       orientation: VideoOrientation = .up, encoder: VideoEncoderSettings,
                       maxDuration: Duration, settle: Duration = .zero, timeout: Duration = .seconds(30),
                       during: (@Sendable () async throws -> Void)? = nil) async throws -> Recording {
        let observed = ObservedCamera(camera)
        let session = CaptureSession()
        let output = MovieFileOutput(encoderSettings: encoder)
        // LPCM, not the default AAC: the emulated CPUs run floating point in software, where
        // AAC and the clock correction's resampler together take over half a CPU and the audio
        // falls behind into overruns (README, "Two emulated CPUs"). AAC is tested on the host.
        output.audioSettings = .lpcm
        output.maxRecordedDuration = maxDuration
        try output.setVideoRotationAngle(Double(orientation.rotationAngle))
        output.setVideoMirrored(orientation.isMirrored)
        try await session.configure { configuration in
            try configuration.addInput(observed)
            if let microphone { try configuration.addInput(microphone) }
            try configuration.addOutput(output)
        }
        let events = Mutex<[String]>([])
        let watcher = Task {
            for await event in session.events { events.withLock { $0.append(Self.describe(event)) } }
        }
        try await session.startRunning()
        let clock = ContinuousClock()
        var started = clock.now
        var cpuBefore = GuestCPU.times()
        do {
            if settle > .zero { try await Task.sleep(for: settle) }
            started = clock.now
            cpuBefore = GuestCPU.times()
            try await output.startRecording(to: path, overwrite: true)  // a retried case records again
        } catch {
            // A recording that cannot start leaves the session running, as AVCaptureSession does:
            // stop it, or every later case finds the camera and the loopback busy.
            await session.stopRunning()
            watcher.cancel()
            throw error
        }
        let action = during.map { body in Task { try await body() } }
        // The library's threads' CPU time, sampled just before the recording should end.
        let sampler = Task { () -> [String: Int] in
            do { try await Task.sleep(for: maxDuration - .milliseconds(300)) } catch { return [:] }
            return GuestCPU.threadTimes().filter { $0.key.hasPrefix("movrec-") }
        }
        let finished: RecordingResult? = await withTaskGroup(of: RecordingResult?.self) { group in
            group.addTask {
                for await event in output.events {
                    if case .didFinishRecording(let result) = event { return result }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        var result = finished
        if result == nil {
            events.withLock { $0.append("timeout") }
            result = await output.stopRecording()
        }
        let wallTime = clock.now - started
        sampler.cancel()
        let threadTicks = await sampler.value
        let cpuAfter = GuestCPU.times()
        let busy = cpuAfter.busy - cpuBefore.busy, idle = cpuAfter.idle - cpuBefore.idle
        var actionError: String?
        do { try await action?.value } catch { actionError = "\(error)" }
        await session.stopRunning()
        // Let the watcher see the last events, then end it.
        try? await Task.sleep(for: .milliseconds(50))
        watcher.cancel()
        guard let result else { throw CaseError("the recording did not finish within \(timeout) and stopping it gave no result") }
        return Recording(result: result, camera: observed.observed, sessionEvents: events.withLock { $0 }, wallTime: wallTime,
                         actionError: actionError, busyPercent: busy + idle == 0 ? 0 : busy * 100 / (busy + idle),
                         threadTicks: threadTicks)
    }

    static func describe(_ event: CaptureSession.Event) -> String {
        switch event {
        case .started: "started"
        case .stopped: "stopped"
        case .interrupted: "interrupted"
        case .interruptionEnded: "interruptionEnded"
        case .runtimeError: "runtimeError"
        }
    }
}

extension CaseRecord {
    /// The numbers every recording case reports.
    func note(_ recording: Recording, file: String) {
        let result = recording.result
        set("file", file)
        set("frames", result.frameCount)
        set("dropped", result.droppedFrameCount)
        set("corrupt", result.corruptedFrameCount)
        set("overruns", result.audioOverrunCount)
        set("playable", result.isPlayable)
        set("duration", seconds(result.duration))
        set("ended", result.error.map { "\($0.code)" } ?? "stopped")
        set("interruption", result.interruption == nil ? "none" : "yes")
        set("orientation", "\(result.orientation.rotationAngle)\(result.orientation.isMirrored ? "m" : "")")
        set("size", result.fileSize)
        set("wall", seconds(recording.wallTime))
        set("cpu_busy", "\(recording.busyPercent)%")
        set("cpu_ticks", recording.threadTicks.sorted { $0.value > $1.value }
            .map { "\($0.key.dropFirst("movrec-".count)):\($0.value)" }.joined(separator: ","))
        let camera = recording.camera
        set("seq", "\(camera.firstSequence.map(String.init) ?? "-")..\(camera.lastSequence.map(String.init) ?? "-")")
        set("seq_wraps", camera.sequenceWraps)
        set("driver_gaps", camera.droppedReported)
        set("gap_mismatches", camera.gapMismatches)
        if let wrap = camera.wrapGap { set("wrap_gap", "skipped:\(wrap.skipped),reported:\(wrap.reported)") }
        set("jitter_ms", camera.worstIntervalError / 1_000_000)
        set("lag_ms", camera.lag.map { "\($0.lowerBound / 1_000_000)..\($0.upperBound / 1_000_000)" } ?? "-")
        set("ts_regressions", camera.timestampRegressions)
        set("session", recording.sessionEvents.joined(separator: ","))
        // Frames the pipeline dropped beyond the driver's own gaps had no CPU to be encoded.
        let starvedDrops = result.droppedFrameCount - camera.droppedReported
        if starvedDrops > 0 || recording.busyPercent >= 85 {
            starvation = "cpu_busy \(recording.busyPercent)%, \(max(0, starvedDrops)) frames dropped beyond the driver's gaps"
        }
    }
}
