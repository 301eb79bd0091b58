#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CRigDrivers

/// Plays a continuous sine into an ALSA playback device on a thread of its own: the "sound"
/// that the loopback card hands to the microphone under test.
///
/// snd-aloop makes the microphone's end of the cable take this end's rate, format and channels.
/// The buffer holds half a second, so the tone goes on through a while of busy CPU.
final class TonePlayer: Sendable {
    let device: String
    let frequency: Double
    let sampleRate: UInt32
    private let shared = PlaybackState()
    private let thread: UnsafeTransferBox<pthread_t>

    /// Opens the device and starts playing.
    init(device: String, frequency: Double, sampleRate: UInt32 = 48_000, periodFrames: Int = 960,
         periods: Int = 25) throws(CaseError) {
        self.device = device
        self.frequency = frequency
        self.sampleRate = sampleRate
        let (pcm, rate, period) = try openPlayback(device, rate: sampleRate, periodFrames: periodFrames,
                                                   bufferFrames: periodFrames * periods)
        let body = PlaybackLoop(pcm: UnsafeTransferBox(pcm), frequency: frequency, rate: rate, periodFrames: period)
        thread = UnsafeTransferBox(startThread { [shared] in body.run(shared) })
    }

    /// Frames written, playback underruns recovered from, and the error that stopped it, if any.
    var statistics: (frames: Int, underruns: Int, error: String?) { shared.statistics.withLock { $0 } }

    func stop() {
        shared.stopRequested.store(true, ordering: .releasing)
        pthread_join(thread.value, nil)
    }
}

/// What the playback thread and its owner share.
private final class PlaybackState: Sendable {
    let stopRequested = Atomic<Bool>(false)
    let statistics = Mutex<(frames: Int, underruns: Int, error: String?)>((0, 0, nil))
}

/// The playback thread's work: one period of sine per write, the phase carried across writes.
private struct PlaybackLoop: Sendable {
    let pcm: UnsafeTransferBox<OpaquePointer>
    let frequency: Double
    let rate: UInt32
    let periodFrames: Int

    func run(_ shared: PlaybackState) {
        let pcm = self.pcm.value
        defer {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
        }
        // One write's worth of samples, computed once (sin is slow under emulation): when the
        // period holds whole cycles (1 kHz in 960 frames at 48 kHz) every write is the same,
        // otherwise the next write continues the phase.
        var samples = [Int16](repeating: 0, count: periodFrames * 2)
        var phase = 0.0
        let step = 2 * Double.pi * frequency / Double(rate)
        let cycles = frequency * Double(periodFrames) / Double(rate)
        let periodic = cycles == cycles.rounded()
        var computed = false
        while !shared.stopRequested.load(ordering: .acquiring) {
            if !(periodic && computed) {
                for i in 0..<periodFrames {
                    let value = Int16(12_000 * sin(phase))
                    samples[2 * i] = value
                    samples[2 * i + 1] = value
                    phase += step
                    if phase > 2 * Double.pi { phase -= 2 * Double.pi }
                }
                computed = true
            }
            var offset = 0
            while offset < periodFrames && !shared.stopRequested.load(ordering: .acquiring) {
                let written = samples.withUnsafeBytes {
                    snd_pcm_writei(pcm, $0.baseAddress! + offset * 4, snd_pcm_uframes_t(periodFrames - offset))
                }
                if written >= 0 {
                    offset += Int(written)
                    shared.statistics.withLock { $0.frames += Int(written) }
                    continue
                }
                if written == -snd_pcm_sframes_t(EPIPE) { shared.statistics.withLock { $0.underruns += 1 } }
                let recovered = snd_pcm_recover(pcm, Int32(written), 1)
                if recovered < 0 {
                    shared.statistics.withLock { $0.error = String(cString: snd_strerror(recovered)) }
                    return
                }
            }
        }
    }
}

/// Opens `device` for interleaved S16_LE stereo playback at about `rate`, `periodFrames` and
/// `bufferFrames`; returns the handle and the rate and period the device took.
func openPlayback(_ device: String, rate: UInt32, periodFrames: Int,
                  bufferFrames: Int) throws(CaseError) -> (pcm: OpaquePointer, rate: UInt32, periodFrames: Int) {
    var pcm: OpaquePointer?
    var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0)
    guard rc >= 0, let pcm else { throw CaseError("opening \(device) for playback: \(String(cString: snd_strerror(rc)))") }
    var params: OpaquePointer?
    snd_pcm_hw_params_malloc(&params)
    defer { snd_pcm_hw_params_free(params) }
    var rate = rate
    var period = snd_pcm_uframes_t(periodFrames)
    var buffer = snd_pcm_uframes_t(bufferFrames)
    rc = snd_pcm_hw_params_any(pcm, params)
    if rc >= 0 { rc = snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED) }
    if rc >= 0 { rc = snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE) }
    if rc >= 0 { rc = snd_pcm_hw_params_set_channels(pcm, params, 2) }
    if rc >= 0 { rc = snd_pcm_hw_params_set_rate_near(pcm, params, &rate, nil) }
    if rc >= 0 { rc = snd_pcm_hw_params_set_period_size_near(pcm, params, &period, nil) }
    if rc >= 0 { rc = snd_pcm_hw_params_set_buffer_size_near(pcm, params, &buffer) }
    if rc >= 0 { rc = snd_pcm_hw_params(pcm, params) }
    guard rc >= 0 else {
        snd_pcm_close(pcm)
        throw CaseError("setting up \(device) for playback: \(String(cString: snd_strerror(rc)))")
    }
    return (pcm, rate, Int(period))
}

/// A value handed to another thread that the sender no longer uses.
struct UnsafeTransferBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Starts `body` on a new joinable POSIX thread.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let rc = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return thread
}
