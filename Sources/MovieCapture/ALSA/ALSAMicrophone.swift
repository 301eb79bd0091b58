import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CALSA

/// An ALSA capture device — a USB microphone, a sound card input, the snd-aloop loopback — as
/// an ``AudioSource``.
///
/// The device is opened by name (`default`, `hw:1,0`, `plughw:CARD=Loopback,DEV=1`…) with
/// interleaved access; rate and channel count are negotiated to the nearest the hardware offers,
/// S16_LE unless asked otherwise. Capture runs on a dedicated thread in blocking reads of one
/// period, in a ring buffer of half a second, at real-time priority (`SCHED_FIFO` 10) where the
/// process may ask for it (root, `CAP_SYS_NICE` or `RLIMIT_RTPRIO`), as audio servers do, so a
/// busy machine delays the reads without losing a period. `snd_pcm_start` is called before the
/// first read. Overruns (-EPIPE) and suspends
/// (-ESTRPIPE) are recovered and reported; a lost device (-ENODEV) ends capture with an
/// interruption.
public final class ALSAMicrophone: AudioSource {
    /// The device name.
    public let deviceName: String
    /// The negotiated format.
    public let format: PCMFormat
    /// Frames per period (one read).
    public let periodFrames: Int
    /// Frames in the device's ring buffer.
    public let bufferFrames: Int
    /// The device name, the same as ``deviceName``.
    public var name: String { deviceName }
    /// Always `true`: a microphone delivers audio in real time.
    public var isLive: Bool { true }
    /// Always `true`: the sound card's crystal counts the samples, so a recording measures how
    /// far it is from the system clock and corrects for it.
    public var hasOwnClock: Bool { true }

    private let thread: SourceThread

    /// Opens the device to negotiate its format, then closes it until ``start(handler:)``.
    ///
    /// - Parameters:
    ///   - device: an ALSA PCM name.
    ///   - sampleRate: the wanted rate; the nearest the device offers is used.
    ///   - channelCount: the wanted channels.
    ///   - period: the wanted period length (one read); 20 ms by default.
    /// - Throws: ``DeviceError``: no such device, busy, or no usable format.
    public init(device: String = "default", sampleRate: UInt32 = 48_000, channelCount: UInt16 = 2,
                period: Duration = .milliseconds(20)) throws(DeviceError) {
        deviceName = device
        let setup = try Self.open(device: device, rate: sampleRate, channels: channelCount, period: period)
        snd_pcm_close(setup.handle)
        format = setup.format
        periodFrames = setup.periodFrames
        bufferFrames = setup.bufferFrames
        thread = SourceThread(sourceName: device, threadName: "movrec-alsa")
        requestedPeriod = period
    }

    private let requestedPeriod: Duration

    package struct Setup {
        var handle: OpaquePointer
        var format: PCMFormat
        var periodFrames: Int
        var bufferFrames: Int
    }

    package static func error(_ code: Int32, device: String, step: String) -> DeviceError {
        let text = String(cString: snd_strerror(code))
        switch -code {
        case ENOENT, ENODEV, ENXIO:
            return DeviceError(.notFound, device: device, step: step, detail: "\(text) — check the name; `movrec devices` and `arecord -L` list the inputs")
        case EBUSY:
            return DeviceError(.busy, device: device, step: step, detail: "\(text) — the device is in use by another process (try the 'default' or a plughw: device, or close the other program)")
        case EACCES, EPERM:
            return DeviceError(.permissionDenied, device: device, step: step, detail: "\(text) — add the user to the 'audio' group")
        case EINVAL:
            return DeviceError(.unsupportedFormat, device: device, step: step, detail: "\(text) — the device does not offer this; try a plughw: device, which converts")
        default:
            return DeviceError(.failed, device: device, step: step, detail: text)
        }
    }

    package static func open(device: String, rate: UInt32, channels: UInt16, period: Duration) throws(DeviceError) -> Setup {
        if let failure = SystemLibrary.alsa.load() {
            throw DeviceError(.libraryMissing, device: device, step: "opening for capture", detail: failure)
        }
        var pcm: OpaquePointer?
        var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
        guard rc >= 0, let pcm else { throw error(rc, device: device, step: "opening for capture") }
        var params: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&params) >= 0, let params else {
            snd_pcm_close(pcm)
            throw DeviceError(.failed, device: device, step: "allocating hardware parameters", detail: "out of memory")
        }
        defer { snd_pcm_hw_params_free(params) }
        func check(_ code: Int32, _ step: String) throws(DeviceError) {
            if code < 0 {
                snd_pcm_close(pcm)
                throw error(code, device: device, step: step)
            }
        }
        try check(snd_pcm_hw_params_any(pcm, params), "reading hardware parameters")
        try check(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "setting interleaved access")
        try check(snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE), "setting sample format S16_LE")
        var actualChannels = UInt32(channels)
        try check(snd_pcm_hw_params_set_channels_near(pcm, params, &actualChannels), "setting \(channels) channels")
        var actualRate = rate
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(pcm, params, &actualRate, &dir), "setting rate \(rate) Hz")
        var periodFrames = snd_pcm_uframes_t(max(64, Int64(actualRate) * period.components.seconds
            + Int64(actualRate) * (period.components.attoseconds / 1_000_000_000) / 1_000_000_000))
        try check(snd_pcm_hw_params_set_period_size_near(pcm, params, &periodFrames, &dir), "setting the period size")
        // Half a second of ring buffer (at least eight periods): a reader starved that long by a
        // busy machine still loses nothing, and reads still come every period.
        var bufferFrames = max(periodFrames * 8, snd_pcm_uframes_t(actualRate / 2))
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, params, &bufferFrames), "setting the buffer size")
        try check(snd_pcm_hw_params(pcm, params), "applying hardware parameters")
        rc = snd_pcm_prepare(pcm)
        try check(rc, "preparing")
        return Setup(handle: pcm, format: PCMFormat(sampleRate: actualRate, channelCount: UInt16(actualChannels)),
                     periodFrames: Int(periodFrames), bufferFrames: Int(bufferFrames))
    }

    /// Opens the device again and starts capturing on a dedicated thread, one period per read.
    /// - Parameter handler: Called on the capture thread with each buffer, overrun, resume or
    ///   interruption.
    /// - Throws: ``DeviceError`` when the device cannot be opened, configured or started;
    ///   ``SourceError`` with ``SourceError/Code/alreadyRunning`` while capturing.
    public func start(handler: @escaping @Sendable (AudioSourceEvent) -> Void) throws {
        let setup = try Self.open(device: deviceName, rate: format.sampleRate, channels: format.channelCount, period: requestedPeriod)
        let rc = snd_pcm_start(setup.handle)
        guard rc >= 0 else {
            snd_pcm_close(setup.handle)
            throw Self.error(rc, device: deviceName, step: "starting capture (snd_pcm_start)")
        }
        let handle = UnsafeTransfer(setup.handle)
        let name = deviceName
        let format = self.format
        let periodFrames = setup.periodFrames
        do {
            try thread.start { run in
                // A late reader loses the period, so the capture thread asks to be scheduled first.
                ThreadPriority.requestRealtime()
                let ending = Self.captureLoop(handle.value, name: name, format: format, periodFrames: periodFrames, run: run,
                                              handler: handler)
                snd_pcm_close(handle.value)
                // Reported once the device is closed, so a restart from the handler can open it.
                if let ending { run.finish { handler(.interrupted(ending)) } }
            }
        } catch {
            snd_pcm_close(setup.handle)
            throw error
        }
    }

    /// Reads periods until stopped or the device is lost.
    /// - Returns: Why capture ended when the device failed, or `nil` when it was stopped.
    package static func captureLoop(_ pcm: OpaquePointer, name: String, format: PCMFormat, periodFrames: Int, run: CaptureRun,
                                    handler: @Sendable (AudioSourceEvent) -> Void) -> InterruptionReason? {
        let bytesPerFrame = format.bytesPerFrame
        let rate = UInt64(format.sampleRate)
        var buffer = [UInt8](repeating: 0, count: periodFrames * bytesPerFrame)
        while !run.isStopRequested {
            // Wait at most 200 ms so a stop request is seen even when no data comes.
            let ready = snd_pcm_wait(pcm, 200)
            if ready == 0 { continue }
            let read = ready < 0 ? snd_pcm_sframes_t(ready) : buffer.withUnsafeMutableBytes {
                snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(periodFrames))
            }
            let arrival = MonotonicClock.now()
            if read >= 0 {
                guard read > 0 else { continue }
                // The first frame of this read was captured `delay + read` frames ago.
                var delay: snd_pcm_sframes_t = 0
                if snd_pcm_delay(pcm, &delay) < 0 { delay = 0 }
                let age = UInt64(max(0, Int(delay) + Int(read))) * 1_000_000_000 / rate
                let bytes = Array(buffer.prefix(Int(read) * bytesPerFrame))
                handler(.buffer(AudioBuffer(bytes: bytes, frameCount: Int(read), timestamp: arrival > age ? arrival - age : 0)))
                continue
            }
            let code = Int32(read)
            switch -code {
            case EPIPE:
                handler(.overrun)
                if snd_pcm_prepare(pcm) < 0 || snd_pcm_start(pcm) < 0 {
                    return InterruptionReason(source: name, message: "recovering from an overrun failed")
                }
            case ESTRPIPE:
                while !run.isStopRequested, snd_pcm_resume(pcm) == -EAGAIN { usleep(100_000) }
                if snd_pcm_prepare(pcm) < 0 || snd_pcm_start(pcm) < 0 {
                    return InterruptionReason(source: name, message: "resuming after a suspend failed")
                }
                handler(.resumedFromSuspend)
            case EAGAIN, EINTR:
                continue
            case ENODEV, ENXIO, EBADFD:
                return InterruptionReason(source: name, message: "the microphone was disconnected (\(String(cString: snd_strerror(code))))")
            default:
                return InterruptionReason(source: name, message: "reading audio failed: \(String(cString: snd_strerror(code)))")
            }
        }
        return nil
    }

    /// Stops capturing, waits for the capture thread to end and closes the device; does nothing
    /// when not capturing.
    public func stop() { thread.stop() }

    /// The capture devices ALSA knows: hardware inputs as `hw:CARD,DEV` with their card names.
    public static func devices() -> [(name: String, description: String)] {
        var result: [(String, String)] = []
        guard SystemLibrary.alsa.load() == nil else { return [] }
        var card: Int32 = -1
        while snd_card_next(&card) >= 0 && card >= 0 {
            var ctl: OpaquePointer?
            guard snd_ctl_open(&ctl, "hw:\(card)", 0) >= 0, let ctl else { continue }
            defer { snd_ctl_close(ctl) }
            var cardName: UnsafeMutablePointer<CChar>?
            _ = snd_card_get_name(card, &cardName)
            let title = cardName.map { String(cString: $0) } ?? "card \(card)"
            free(cardName)
            var dev: Int32 = -1
            while snd_ctl_pcm_next_device(ctl, &dev) >= 0 && dev >= 0 {
                var info: OpaquePointer?
                guard snd_pcm_info_malloc(&info) >= 0, let info else { continue }
                defer { snd_pcm_info_free(info) }
                snd_pcm_info_set_device(info, UInt32(dev))
                snd_pcm_info_set_subdevice(info, 0)
                snd_pcm_info_set_stream(info, SND_PCM_STREAM_CAPTURE)
                guard snd_ctl_pcm_info(ctl, info) >= 0 else { continue }
                let pcmName = String(cString: snd_pcm_info_get_name(info))
                result.append(("hw:\(card),\(dev)", "\(title): \(pcmName)"))
            }
        }
        return result
    }
}
