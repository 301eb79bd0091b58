#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CRigDrivers

/// Plays a click at every whole second of CLOCK_MONOTONIC into a loopback cable whose rate is
/// shifted, so the microphone at the cable's other end hears true time.
///
/// The cable runs at its own rate: a generator counting samples at the nominal rate would
/// follow it. This player measures it instead: before each write, the frame being played now
/// is the frames written minus `snd_pcm_delay`; a least-squares line through those points
/// against CLOCK_MONOTONIC gives the frame that will be playing at any instant, and each click
/// starts at the frame the line gives a whole second. The first seconds, before the line is
/// good, place no clicks.
final class ClickPlayer: Sendable {
    let device: String
    private let shared = ClickPlayerState()
    private let thread: UnsafeTransferBox<pthread_t>

    /// Opens `device` (S16_LE stereo at 48 kHz, 10 ms periods, 80 ms buffer) and starts playing;
    /// `raised` puts its thread ten nice levels above the others (a guest loaded on purpose).
    init(device: String, raised: Bool = false) throws(CaseError) {
        self.device = device
        let (pcm, rate, period) = try openPlayback(device, rate: 48_000, periodFrames: 480, bufferFrames: 3840)
        let loop = ClickLoop(pcm: UnsafeTransferBox(pcm), rate: Double(rate), periodFrames: period)
        thread = UnsafeTransferBox(startThread { [shared] in
            // Linux's nice is per thread: 0 names the calling one.
            if raised { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, -10) }
            loop.run(shared)
        })
    }

    /// The cable's rate as the player measured it (frames per second), clicks placed, underruns
    /// and the error that stopped it, if any.
    var statistics: ClickPlayerState.Statistics { shared.statistics.withLock { $0 } }

    func stop() {
        shared.stopRequested.store(true, ordering: .releasing)
        pthread_join(thread.value, nil)
    }
}

/// What the playback thread and its owner share.
final class ClickPlayerState: Sendable {
    struct Statistics: Sendable {
        var measuredRate = 0.0
        var clicks = 0
        var underruns = 0
        var error: String?
    }
    let stopRequested = Atomic<Bool>(false)
    let statistics = Mutex(Statistics())
}

/// A least-squares line of the playing frame against time, over every point since the start
/// (the cable's rate does not change), in sums relative to the first point.
struct CableLine {
    private var origin: (time: Double, frame: Double)?
    private var n = 0.0, st = 0.0, sf = 0.0, stt = 0.0, stf = 0.0
    private(set) var span = 0.0

    mutating func add(time: UInt64, frame: Int64) {
        let origin = self.origin ?? (Double(time), Double(frame))
        self.origin = origin
        let t = (Double(time) - origin.time) / 1e9, f = Double(frame) - origin.frame
        n += 1; st += t; sf += f; stt += t * t; stf += t * f
        span = t
    }

    /// Frames per second.
    var rate: Double { (n * stf - st * sf) / (n * stt - st * st) }

    /// The frame playing at `time` (nanoseconds on CLOCK_MONOTONIC).
    func frame(at time: UInt64) -> Double {
        guard let origin else { return 0 }
        let slope = rate, intercept = (sf - slope * st) / n
        return origin.frame + intercept + slope * (Double(time) - origin.time) / 1e9
    }
}

/// The playback thread's work: one period per write, silence with the clicks that fall in it.
private struct ClickLoop: Sendable {
    let pcm: UnsafeTransferBox<OpaquePointer>
    let rate: Double
    let periodFrames: Int

    func run(_ shared: ClickPlayerState) {
        let pcm = self.pcm.value
        defer {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
        }
        var line = CableLine()
        var written: Int64 = 0
        var samples = [Int16](repeating: 0, count: periodFrames * 2)
        var nextSecond: UInt64 = 0
        var clickStart: Int64?
        let clickLength: Int64 = 48
        while !shared.stopRequested.load(ordering: .acquiring) {
            var delay: snd_pcm_sframes_t = 0
            if written > 0, snd_pcm_delay(pcm, &delay) == 0 {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let time = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
                line.add(time: time, frame: written - Int64(delay))
                if nextSecond == 0 { nextSecond = time / 1_000_000_000 + 4 }
            }
            // The next click, once the line has three seconds behind it; a second whose frame is
            // already written (the thread was late) is skipped, not counted.
            if clickStart == nil, line.span >= 3, nextSecond > 0 {
                let start = Int64(line.frame(at: nextSecond * 1_000_000_000).rounded())
                if start >= written { clickStart = start } else { nextSecond += 1 }
            }
            for i in 0..<periodFrames {
                let frame = written + Int64(i)
                var value: Int16 = 0
                if let start = clickStart, frame >= start, frame < start + clickLength { value = 16_000 }
                samples[2 * i] = value
                samples[2 * i + 1] = value
            }
            if let start = clickStart, start + clickLength <= written + Int64(periodFrames) {
                shared.statistics.withLock { $0.clicks += 1 }
                clickStart = nil
                nextSecond += 1
            }
            if !write(pcm, samples, shared) { return }
            written += Int64(periodFrames)
            let measured = line.span >= 3 ? line.rate : 0
            shared.statistics.withLock { $0.measuredRate = measured }
        }
    }

    /// Writes one period, recovering from underruns. Returns false when playback failed.
    private func write(_ pcm: OpaquePointer, _ samples: [Int16], _ shared: ClickPlayerState) -> Bool {
        var offset = 0
        while offset < periodFrames {
            let written = samples.withUnsafeBytes {
                snd_pcm_writei(pcm, $0.baseAddress! + offset * 4, snd_pcm_uframes_t(periodFrames - offset))
            }
            if written >= 0 {
                offset += Int(written)
                continue
            }
            if written == -snd_pcm_sframes_t(EPIPE) { shared.statistics.withLock { $0.underruns += 1 } }
            let recovered = snd_pcm_recover(pcm, Int32(written), 1)
            if recovered < 0 {
                shared.statistics.withLock { $0.error = String(cString: snd_strerror(recovered)) }
                return false
            }
        }
        return true
    }
}
