#if canImport(Glibc)
import Glibc
#endif
@_spi(DeviceRig) import MovieCapture
@_spi(DeviceRig) import MovieEncoding
import Synchronization

/// Feeds a camera's frames to an encoder stream on the capture thread, in phases of a given
/// number of frames: each phase is drained at its end, and the stream restarted for the next.
/// Pictures numbered in `keyframes` are asked to be keyframes first; those in `copying` go in
/// as copies (without the camera's DMA-BUF, as the recording's reserve copies do), those in
/// `forging` claiming to lie in a DMA-BUF that is `/dev/null`'s descriptor; the first
/// `keeping` pictures are kept, for comparing with what a decoder makes of the coded frames.
final class EncoderRun: Sendable {
    private struct State {
        var phase = 0
        var inPhase = 0
        var submitted: UInt64 = 0
        var coded: [[V4L2EncoderStream.CodedFrame]] = [[]]
        var pictures: [[UInt8]] = []
        var error: EncoderError?
        var finished = false
        /// Frames whose I420 planes were made from the camera's own picture by the time the
        /// stream was done with them.
        var conversions = 0
        /// The capture thread's CPU time in the stream's calls, in microseconds.
        var userMicroseconds = 0
        var systemMicroseconds = 0
        /// The capture thread's user time when the first picture came and when the last was done:
        /// everything it did meanwhile, a conversion at capture included.
        var threadUserAtFirst: Int?
        var threadUserAtLast = 0
    }

    private let stream: V4L2EncoderStream
    private let plan: [Int]
    private let keyframes: Set<UInt64>
    private let copying: Set<UInt64>
    private let forging: Set<UInt64>
    private let notADMABUF: Int32
    private let keeping: Int
    private let state = Mutex(State())
    private let (ended, endedContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    private let (submissions, submitted) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))

    init(stream: V4L2EncoderStream, phases: [Int], keyframes: Set<UInt64> = [], copying: Set<UInt64> = [],
         forging: Set<UInt64> = [], keeping: Int = 0) {
        self.stream = stream
        plan = phases
        self.keyframes = keyframes
        self.copying = copying
        self.forging = forging
        notADMABUF = forging.isEmpty ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC)
        self.keeping = keeping
    }

    var phases: [[V4L2EncoderStream.CodedFrame]] { state.withLock { $0.coded } }
    var pictures: [[UInt8]] { state.withLock { $0.pictures } }
    var failure: EncoderError? { state.withLock { $0.error } }
    var conversions: Int { state.withLock { $0.conversions } }
    /// CPU time the capture thread spent in the stream's calls (copies, ioctls and whatever the
    /// driver does inside them), in microseconds: user, system.
    var cpu: (user: Int, system: Int) { state.withLock { ($0.userMicroseconds, $0.systemMicroseconds) } }
    /// The capture thread's user time from the first picture to the last, in microseconds.
    var threadUser: Int { state.withLock { $0.threadUserAtLast - ($0.threadUserAtFirst ?? $0.threadUserAtLast) } }
    var error: String? { failure.map { "\($0.code): \($0.message)" } }
    var progress: String { state.withLock { "phase \($0.phase), \($0.submitted) frames submitted, \($0.coded.map(\.count)) coded" } }

    /// Called on the camera's capture thread, the only thread that uses the stream.
    func handle(_ event: VideoSourceEvent) {
        guard case .frame(let frame) = event else { return }
        let (phase, number, finished) = state.withLock { s in (s.phase, s.submitted + 1, s.finished) }
        guard !finished else { return }
        let before = Self.threadUsage()
        defer {
            let after = Self.threadUsage()
            state.withLock { s in
                s.userMicroseconds += after.user - before.user
                s.systemMicroseconds += after.system - before.system
                if s.threadUserAtFirst == nil { s.threadUserAtFirst = before.user }
                s.threadUserAtLast = after.user
            }
        }
        do throws(EncoderError) {
            var coded = keyframes.contains(number) ? try stream.requestKeyframe() : []
            let handed = copying.contains(number) ? Self.copy(of: frame) : forging.contains(number) ? forged(frame) : frame
            try stream.submit(handed, number: number)
            let picture = number <= UInt64(keeping) ? frame.packedBytes() : nil
            while let frame = try stream.takeCoded() { coded.append(frame) }
            let converted = frame.convertedOnDemand
            let phaseEnds = state.withLock { s in
                s.submitted = number
                if converted { s.conversions += 1 }
                s.inPhase += 1
                if let picture { s.pictures.append(picture) }
                return s.inPhase == plan[phase]
            }
            submitted.yield(number)
            if phaseEnds { coded += try stream.drain() }
            let last = phaseEnds && phase + 1 == plan.count
            if phaseEnds && !last { try stream.restart() }
            state.withLock { s in
                s.coded[phase] += coded
                if phaseEnds && !last { (s.phase, s.inPhase) = (phase + 1, 0); s.coded.append([]) }
                s.finished = last
            }
            if last { endedContinuation.yield() }
        } catch {
            state.withLock { s in
                s.error = error
                s.finished = true
            }
            endedContinuation.yield()
        }
    }

    /// Waits until every phase is done or encoding failed; false after `seconds`.
    func waitUntilFinished(seconds: Int) async -> Bool {
        await Self.first(of: ended, seconds: seconds) { _ in true }
    }

    /// Waits until `count` pictures went in; false after `seconds` or when encoding ended first.
    func waitUntilSubmitted(_ count: UInt64, seconds: Int) async -> Bool {
        let (reached, finished) = state.withLock { ($0.submitted >= count, $0.finished) }
        if reached || finished { return reached }
        return await Self.first(of: submissions, seconds: seconds) { $0 >= count }
    }

    /// Whether `stream` yields an element `matches` takes within `seconds`.
    private static func first<T: Sendable>(of stream: AsyncStream<T>, seconds: Int, where matches: @escaping @Sendable (T) -> Bool) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { for await element in stream where matches(element) { return true }; return false }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    deinit { if notADMABUF >= 0 { close(notADMABUF) } }

    /// The picture claiming to lie in a DMA-BUF laid out as vivid's YU12, whose descriptor is
    /// `/dev/null`'s: an import the driver must refuse.
    private func forged(_ frame: VideoFrame) -> VideoFrame {
        let size = frame.pixelFormat.byteCount(width: frame.width, height: frame.height)
        return frame.claiming(ExportedPicture(descriptor: notADMABUF, pixelFormat: V4L2PixelFormat("YU12")!,
                                              bytesPerLine: frame.planes[0].bytesPerRow, bytesUsed: size, length: size))
    }

    /// The picture in memory of its own: a frame without the camera's DMA-BUF.
    private static func copy(of frame: VideoFrame) -> VideoFrame {
        // The bytes are one picture of the frame's own size and format, which cannot be refused.
        try! VideoFrame(copying: frame.packedBytes(), width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat,
                        timestamp: frame.timestamp, sequenceNumber: frame.sequenceNumber)
    }

    /// This thread's CPU time so far, in microseconds.
    private static func threadUsage() -> (user: Int, system: Int) {
        var usage = rusage()
        guard getrusage(__rusage_who_t(1), &usage) == 0 else { return (0, 0) }  // RUSAGE_THREAD, which Glibc does not import
        return (usage.ru_utime.tv_sec * 1_000_000 + usage.ru_utime.tv_usec, usage.ru_stime.tv_sec * 1_000_000 + usage.ru_stime.tv_usec)
    }
}
