import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// An audio source that generates a sine tone: the stand-in for a microphone in tests and demos.
///
/// Samples are signed 16-bit little-endian, the same value in every channel, and the phase runs
/// on from one buffer to the next. Buffer *n* starts at sample frame `k = n × bufferFrames` and
/// is stamped `start + k × 10⁹ / sampleRate` nanoseconds on ``MonotonicClock``, computed from
/// the frame count in integers, so no error accumulates. In real time each buffer is delivered
/// when its last frame would have been captured, like a sound card's period; a handler that
/// returns late delays later buffers but loses nothing. Otherwise buffers are delivered as fast
/// as the handler returns.
///
/// `start(handler:)` while generating throws ``SourceError/Code/alreadyRunning``; after
/// ``stop()``, or after the source has ended, it starts over at phase 0 with a new start time.
public final class ToneSource: AudioSource {
    /// The source's name, "tone".
    public let name = "tone"
    /// The sample rate and channel count, in signed 16-bit little-endian samples.
    public let format: PCMFormat
    /// A Boolean value that indicates whether buffers are paced in real time, like a sound card's.
    public let isLive: Bool
    /// The tone's frequency in hertz.
    public let frequency: Double
    /// The peak level, from 0 to 1 of full scale.
    public let amplitude: Double
    /// The number of frames in each buffer (the last one may be shorter).
    public let bufferFrames: Int
    /// The number of frames after which the source delivers ``AudioSourceEvent/ended``, or
    /// `nil` to run until stopped.
    public let durationFrames: Int?

    /// A Boolean value that indicates whether the source clicks at each whole second of media
    /// time instead of playing the tone: a pulse at ``amplitude`` lasting a millisecond, whose
    /// onset a sync checker finds to the sample after encoding and decoding. Live, its time is
    /// counted from the media clock every synthetic source marking seconds in this process
    /// shares, so the clicks fall on the same instants as a ``TestPatternSource``'s flashes.
    public let marksSeconds: Bool

    /// A Boolean value that indicates whether the tone counts its samples on a clock of its own;
    /// false: it shares ``MonotonicClock``, as a media clock, with the video sources (tests give
    /// it a simulated sound card's crystal instead).
    public var hasOwnClock: Bool { crystal != nil }

    /// The simulated sound card's crystal the samples are counted on, if any (for tests).
    package let crystal: SimulatedCrystal?

    private let thread: SourceThread

    /// Creates a tone generator.
    /// - Parameters:
    ///   - frequency: The tone's frequency in hertz, above 0 and below half the sample rate.
    ///   - sampleRate: Frames per second, from 1 to 768 000.
    ///   - channelCount: The number of channels, from 1 to 32.
    ///   - amplitude: The peak level, from 0 to 1 of full scale.
    ///   - realTime: `true` to pace buffers like a sound card; `false` to deliver them as fast
    ///     as the handler takes them.
    ///   - bufferFrames: The frames per buffer; `nil` for 20 ms (`sampleRate / 50`).
    ///   - durationFrames: The number of frames before the source ends, or `nil` for no end.
    ///   - marksSeconds: Whether the source clicks at each whole second instead of playing the
    ///     tone, for measuring audio–video sync.
    /// - Throws: ``SourceError`` with ``SourceError/Code/invalidConfiguration`` for a parameter
    ///   out of range.
    public convenience init(frequency: Double = 1000, sampleRate: Int = 48_000, channelCount: Int = 2, amplitude: Double = 0.5,
                realTime: Bool = true, bufferFrames: Int? = nil, durationFrames: Int? = nil,
                marksSeconds: Bool = false) throws(SourceError) {
        try self.init(frequency: frequency, sampleRate: sampleRate, channelCount: channelCount, amplitude: amplitude,
                      realTime: realTime, bufferFrames: bufferFrames, durationFrames: durationFrames,
                      marksSeconds: marksSeconds, crystal: nil)
    }

    /// Creates a live tone generator whose samples are counted on a clock `partsPerMillion` fast
    /// (negative: slow) against ``MonotonicClock``, as a microphone's are: the benchmarks'
    /// stand-in for one, which a recording measures and corrects.
    @_spi(Benchmarks) public convenience init(crystalPartsPerMillion partsPerMillion: Int64) throws(SourceError) {
        try self.init(crystal: SimulatedCrystal(partsPerMillion: partsPerMillion))
    }

    /// Creates a tone generator whose samples are counted on `crystal`, a simulated sound card's
    /// clock that drifts from ``MonotonicClock``. Not live (`realTime` false), the buffers come
    /// as fast as the handler takes them, stamped with the times the crystal gives them from
    /// the moment the source starts: hours of a drifting microphone in seconds.
    package init(frequency: Double = 1000, sampleRate: Int = 48_000, channelCount: Int = 2, amplitude: Double = 0.5,
                 realTime: Bool = true, bufferFrames: Int? = nil, durationFrames: Int? = nil,
                 marksSeconds: Bool = false, crystal: SimulatedCrystal?) throws(SourceError) {
        func invalid(_ message: String) -> SourceError {
            SourceError(.invalidConfiguration, source: "tone", step: "creating", message)
        }
        guard sampleRate >= 1, sampleRate <= 768_000 else {
            throw invalid("sample rate \(sampleRate) Hz is out of range: use 1 to 768000")
        }
        guard frequency > 0, frequency < Double(sampleRate) / 2 else {
            throw invalid("frequency \(frequency) Hz must be above 0 and below half the sample rate (\(sampleRate / 2) Hz)")
        }
        guard (1...32).contains(channelCount) else { throw invalid("channel count \(channelCount) is out of range: use 1 to 32") }
        guard amplitude >= 0, amplitude <= 1 else { throw invalid("amplitude \(amplitude) is out of range: use 0 to 1 of full scale") }
        let bufferFrames = bufferFrames ?? max(1, sampleRate / 50)
        guard bufferFrames >= 1 else { throw invalid("buffer size \(bufferFrames) frames must be at least 1") }
        guard durationFrames.map({ $0 >= 0 }) ?? true else {
            throw invalid("duration \(durationFrames!) frames is negative: use 0 or more, or nil for no end")
        }
        format = .int16(sampleRate: UInt32(sampleRate), channelCount: UInt16(channelCount))
        isLive = realTime
        self.frequency = frequency
        self.amplitude = amplitude
        self.bufferFrames = bufferFrames
        self.durationFrames = durationFrames
        self.marksSeconds = marksSeconds
        self.crystal = crystal
        thread = SourceThread(sourceName: name, threadName: "tone")
    }

    /// Starts generating on a dedicated thread.
    /// - Throws: ``SourceError`` with ``SourceError/Code/alreadyRunning`` while generating.
    public func start(handler: @escaping @Sendable (AudioSourceEvent) -> Void) throws {
        let live = isLive, rate = UInt64(format.sampleRate), channels = Int(format.channelCount)
        let bufferFrames = UInt64(self.bufferFrames), total = durationFrames.map(UInt64.init) ?? .max
        let step = 2 * Double.pi * frequency / Double(rate), scale = amplitude * Double(Int16.max), marks = marksSeconds
        let crystal = self.crystal
        try thread.start { run in
            let (timeline, first, epoch) = Self.timeline(rate: rate, live: live, marks: marks, crystal: crystal)
            var clicks = ClickSchedule(timeline: timeline, epoch: epoch, length: max(1, rate / 1000))
            var phase = 0.0
            var k = first
            var random: UInt64 = 0x9E37_79B9_7F4A_7C15
            var index = 0
            while !run.isStopRequested {
                guard k - first < total else { return run.finish { handler(.ended) } }
                let count = min(bufferFrames, total - (k - first))
                if live { guard run.wait(until: timeline.time(of: k + count)) else { return } }
                var bytes = [UInt8](repeating: 0, count: Int(count) * channels * 2)
                bytes.withUnsafeMutableBytes { raw in
                    let samples = raw.bindMemory(to: Int16.self)
                    for frame in 0..<Int(count) {
                        let value: Int16
                        if marks {
                            value = clicks.isClick(k + UInt64(frame)) ? Int16(scale.rounded()) : 0
                        } else {
                            value = Int16((scale * sin(phase)).rounded())
                            phase += step
                            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
                        }
                        for channel in 0..<channels { samples[frame * channels + channel] = value.littleEndian }
                    }
                }
                let error = crystal?.error(ofBuffer: index, &random) ?? 0
                let timestamp = UInt64(bitPattern: Int64(bitPattern: timeline.time(of: k)) &+ error)
                handler(.buffer(AudioBuffer(bytes: bytes, frameCount: Int(count), timestamp: timestamp)))
                k += count
                index += 1
            }
        }
    }

    /// The capture times of the samples, the first sample's index, and the media clock's time 0
    /// that the clicks count whole seconds from: the shared clock when marking seconds live,
    /// else the start.
    private static func timeline(rate: UInt64, live: Bool, marks: Bool,
                                 crystal: SimulatedCrystal?) -> (CaptureTimeline, UInt64, UInt64) {
        let start = marks && live ? SyncMarkClock.start() : (live ? nil : crystal?.start) ?? MonotonicClock.now()
        let timeline = crystal?.timeline(start: start, sampleRate: rate) ?? CaptureTimeline(start: start, count: rate)
        let first = marks && live ? timeline.index(at: MonotonicClock.now()) + 1 : 0
        return (timeline, first, start)
    }

    /// Stops generating and waits for the generating thread to end.
    public func stop() { thread.stop() }
}
