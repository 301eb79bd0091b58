import Dispatch
import MovieCapture
import MovieRecorder
import MovieNetwork
#if canImport(Glibc)
import Glibc
#endif

/// The wait for `movrec record` to end: at the movie output's own finish (a file source's end,
/// a limit) or at Ctrl-C or SIGTERM, with a live status line on a terminal.
///
/// The loop wakes at once when the recording finishes or a signal arrives (the handler writes
/// to ``signalPipe``, which a dispatch source watches), and, only while the status line is
/// shown, five times a second to redraw it. ``cancel()`` ends what wakes it.
struct RecordingLoop {
    let movie: MovieFileOutput
    /// The session, for the audio input's levels.
    let session: CaptureSession
    let output: String
    private let wakes: AsyncStream<Void>
    private let watcher: Task<Void, Never>
    /// Prints each step the session takes under pressure, and each it undoes.
    private let stepWatcher: Task<Void, Never>
    private let ticker: Task<Void, Never>?
    private let signals: DispatchSourceRead?
    /// Whether the status line is shown: standard error is a terminal and `--quiet` was not given.
    private let isInteractive: Bool

    /// Starts watching `movie`'s events, which announce the file and wake the loop at the end.
    /// `--event-post`: how long a clip SIGUSR1 saves goes on; nil without event clips.
    let eventPostRoll: Duration?

    /// `--upload`'s queue, whose backlog the status line shows.
    let uploads: UploadQueue?

    init(movie: MovieFileOutput, session: CaptureSession, output: String, quiet: Bool, eventPostRoll: Duration? = nil,
         uploads: UploadQueue? = nil) {
        self.movie = movie
        self.uploads = uploads
        self.eventPostRoll = eventPostRoll
        self.session = session
        self.output = output
        let (wakes, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakes = wakes
        watcher = Task { [events = movie.events] in
            for await event in events {
                switch event {
                case .didStartRecording(let path, _): standardError("movrec: recording to \(path)")
                case .didChooseVideoEncoder(let choice): standardError("movrec: encoding with \(choice)")
                case .didStartSegment(let path): standardError("movrec: recording to \(path)")
                case .didFinishSegment(let result): standardError("movrec: finished \(result)")
                case .didStartEventClip(let path): standardError("movrec: saving an event clip to \(path)")
                case .didFinishEventClip(let result): standardError("movrec: event clip \(result)")
                case .didFinishRecording: waker.yield()
                default: break
                }
            }
        }
        stepWatcher = Task { [steps = session.degradationSteps()] in
            for await step in steps { standardError("movrec: under pressure: \(step)") }
        }
        isInteractive = isatty(2) == 1 && !quiet
        ticker = !isInteractive ? nil : Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(200))  // the status line's refresh rate
                waker.yield()
            }
        }
        signals = watchSignalPipe { waker.yield() }
    }

    /// Waits for the recording to end, stopping it at a signal.
    /// - Returns: the recording's result; nil if the output had none to give.
    func run() async -> RecordingResult? {
        var wake = wakes.makeAsyncIterator()
        var result: RecordingResult?
        let started = MonotonicClock.now()
        var eventSignals = 0  // a SIGUSR1 that came while the recording was starting counts too
        while result == nil {
            let count = eventSignalCount.load(ordering: .relaxed)
            if count != eventSignals {
                eventSignals = count
                saveEventClip()
            }
            let signal = receivedSignal.load(ordering: .relaxed)
            if signal != 0 {
                if isInteractive { standardError("") }
                standardError("movrec: \(signal == SIGINT ? "interrupted" : "terminated"); finalizing \(output)")
                result = await movie.stopRecording()
                break
            }
            if !movie.isRecording {
                result = await movie.stopRecording()
                break
            }
            if isInteractive { showStatus(since: started) }
            _ = await wake.next()
        }
        if isInteractive { standardError("") }
        return result
    }

    /// SIGUSR1: saves an event clip, or says why not.
    private func saveEventClip() {
        if isInteractive { standardError("") }
        guard let postRoll = eventPostRoll else {
            standardError("movrec: SIGUSR1 saves an event clip only with --event-directory; nothing saved")
            return
        }
        do {
            try movie.saveEventClip(postRoll: postRoll)
        } catch {
            standardError("movrec: \(error)")
        }
    }

    /// Ends the tasks that wake the loop.
    func cancel() {
        watcher.cancel()
        stepWatcher.cancel()
        ticker?.cancel()
        signals?.cancel()
    }

    /// Rewrites the status line: media recorded, time elapsed, frames dropped, file size, the
    /// microphone clock's drift, and the audio level of each channel (average power and peak
    /// hold, dBFS).
    private func showStatus(since started: UInt64) {
        let elapsed = Double(MonotonicClock.now() - started) / 1e9
        let media = movie.recordedDuration
        let mediaSeconds = Double(media.components.seconds) + Double(media.components.attoseconds) / 1e18
        let line = "  \(Self.format(mediaSeconds, 1)) s recorded, \(Self.format(elapsed, 1)) s elapsed, "
            + "\(movie.droppedFrameCount) dropped, \(Self.format(Double(movie.recordedFileSize) / 1_000_000, 1)) MB"
            + Self.drift(movie.audioClockDrift) + Self.pressure(session.systemPressureState, divisor: movie.frameRateDivisor) + Self.gps(movie.locationSource) + Self.upload(uploads?.status)
            + Self.meter(session.audioChannelLevels) + "   "
        _ = "\r\(line)".withCString { write(2, $0, strlen($0)) }
    }

    /// The pressure and the frame-rate step in force, such as `, pressure serious
    /// (recordingLag), 1/2 of the frames`; nothing while the level is nominal at full rate.
    static func pressure(_ state: SystemPressureState, divisor: Int) -> String {
        guard state.level > .nominal || divisor > 1 else { return "" }
        return ", pressure \(state)" + (divisor > 1 ? ", 1/\(divisor) of the frames" : "")
    }

    /// The upload queue's backlog, such as `, upload 2 to go (9.4 MB) at 1.1 MB/s`.
    static func upload(_ status: UploadQueue.Status?) -> String {
        guard let status else { return "" }
        return ", upload \(status.pendingFiles) to go (\(format(Double(status.pendingBytes) / 1e6, 1)) MB) at "
            + "\(format(Double(status.bytesPerSecond) / 1e6, 1)) MB/s" + (status.lastError == nil ? "" : " (failing)")
    }

    /// The microphone clock's drift against the system clock, such as `, audio clock +42.1 ppm`;
    /// nothing before it is measured.
    static func drift(_ partsPerMillion: Double?) -> String {
        guard let partsPerMillion else { return "" }
        return ", audio clock \(partsPerMillion < 0 ? "-" : "+")\(format(abs(partsPerMillion), 1)) ppm"
    }

    /// The GPS's state for `--gps`, such as `, GPS fix` or `, GPS: gpsd at 127.0.0.1:2947 has no fix`.
    static func gps(_ source: (any LocationSource)?) -> String {
        guard let gpsd = source as? GPSDLocationSource else { return "" }
        switch gpsd.state {
        case .fix: return ", GPS fix"
        case .connecting: return ", GPS connecting"
        case .stopped: return ""
        case .unavailable(let reason): return ", GPS: \(reason)"
        }
    }

    /// A level meter for each channel: a bar of 10 cells over −60…0 dBFS for the average power,
    /// then average and peak in dB, such as ` | L ██████···· -18/-12 dB`.
    static func meter(_ levels: [AudioChannelLevel]) -> String {
        guard !levels.isEmpty else { return "" }
        let names = levels.count == 2 ? ["L", "R"] : levels.indices.map { "\($0 + 1)" }
        return zip(names, levels).map { name, level in
            let cells = max(0, min(10, Int(((level.averagePowerLevel + 60) / 6).rounded(.down))))
            let bar = String(repeating: "█", count: cells) + String(repeating: "·", count: 10 - cells)
            func db(_ value: Float) -> String { value <= -100 ? "-inf" : String(Int(value.rounded())) }
            return " | \(name) \(bar) \(db(level.averagePowerLevel))/\(db(level.peakHoldLevel)) dB"
        }.joined()
    }

    /// `value`, not negative, with `decimals` digits after the point, rounded to the nearest.
    private static func format(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((value * scale).rounded())
        let whole = scaled / Int64(scale), fraction = abs(scaled % Int64(scale))
        guard decimals > 0 else { return String(whole) }
        let digits = String(fraction)
        return "\(whole).\(String(repeating: "0", count: decimals - digits.count))\(digits)"
    }
}
