import MovieContainer
import MoviePlatform
/// A video source that draws a moving test pattern: the stand-in for a camera in tests and demos.
///
/// Every picture shows which side is up — a red block at the top-left corner, a green block at
/// the top-right corner and a white arrow pointing up between them — and the frame number in
/// digits in the centre. Behind them a textured background scrolls, a box bounces and a patch
/// of noise changes every frame, so an encoder has real work to do. Pictures are drawn straight
/// into I420 or NV12 by row copies of precomputed texture, which is far cheaper than encoding
/// them: see `TestPatternRenderer`.
///
/// In real time the source behaves like a camera: it captures frame *n* at
/// `start + n × frame duration` on ``MonotonicClock`` and stamps it with that time. When the
/// handler returns too late for one or more frame times, or every buffer of the pool is still
/// held by consumers, those frames are reported as ``VideoSourceEvent/dropped(count:)``. Out of
/// real time the source delivers frames as fast as the handler returns them, stamped
/// `start + n × frame duration`, and waits for a free buffer instead of dropping.
///
/// With ``marksSeconds``, the frame that starts each whole second of media time is drawn all
/// white, a mark a sync checker finds after encoding and decoding; live, the source then keeps
/// the media clock it shares with a ``ToneSource`` marking seconds (see ``marksSeconds``).
///
/// `start(handler:)` while capturing throws ``SourceError/Code/alreadyRunning``; after
/// ``stop()``, or after the source has ended, it starts over from frame 0 with a new start time.
public final class TestPatternSource: VideoSource {
    /// The source's name, "test pattern".
    public let name = "test pattern"
    /// The size, pixel format and frame rate the pattern is drawn at.
    public let format: VideoFormat
    /// A Boolean value that indicates whether frames are paced in real time, like a camera's.
    public let isLive: Bool
    /// The number of frame times after which the source delivers ``VideoSourceEvent/ended``,
    /// or `nil` to run until stopped. Dropped frames count.
    public let frameLimit: Int?
    /// The number of pictures consumers may hold at once before frames are dropped (in real
    /// time) or the source waits (otherwise).
    public let bufferCount: Int
    /// A Boolean value that indicates whether the frame starting each whole second of media
    /// time is white. Live, frame *n*'s time is then counted from the media clock that every
    /// synthetic source marking seconds in this process shares (time 0 is when the first of
    /// them started), so a ``ToneSource``'s clicks fall on the same instants as the flashes.
    public let marksSeconds: Bool

    package let renderer: TestPatternRenderer
    private let thread: SourceThread

    /// Creates a test pattern source.
    /// - Parameters:
    ///   - width: The picture width in pixels: even, at least 64.
    ///   - height: The picture height in pixels: even, at least 64.
    ///   - frameRate: The rate frames are captured at.
    ///   - pixelFormat: The layout pictures are drawn in.
    ///   - realTime: `true` to pace frames at the frame rate, like a camera; `false` to deliver
    ///     them as fast as the handler takes them.
    ///   - frameLimit: The number of frame times before the source ends, or `nil` for no end.
    ///   - bufferCount: The number of pooled pictures, at least 1.
    ///   - marksSeconds: Whether the frame starting each whole second is white, for measuring
    ///     audio–video sync.
    /// - Throws: ``SourceError`` with ``SourceError/Code/invalidConfiguration`` for a size, rate,
    ///   limit or buffer count out of range.
    public init(width: Int, height: Int, frameRate: FrameRate, pixelFormat: PixelFormat = .i420, realTime: Bool = true,
                frameLimit: Int? = nil, bufferCount: Int = 6, marksSeconds: Bool = false) throws(SourceError) {
        func invalid(_ message: String) -> SourceError {
            SourceError(.invalidConfiguration, source: "test pattern", step: "creating", message)
        }
        guard width >= 64, height >= 64, width % 2 == 0, height % 2 == 0, width <= 16_384, height <= 16_384 else {
            throw invalid("\(width)x\(height) is not a size it draws: use even widths and heights from 64 to 16384")
        }
        guard frameRate.frames > 0, frameRate.seconds > 0 else {
            throw invalid("frame rate \(frameRate.frames)/\(frameRate.seconds) is not a rate: both numbers must be positive")
        }
        guard frameLimit.map({ $0 >= 0 }) ?? true else {
            throw invalid("frame limit \(frameLimit!) is negative: use 0 or more, or nil for no limit")
        }
        guard bufferCount >= 1 else { throw invalid("buffer count \(bufferCount) must be at least 1") }
        format = VideoFormat(width: width, height: height, pixelFormat: pixelFormat, frameRate: frameRate)
        isLive = realTime
        self.frameLimit = frameLimit
        self.bufferCount = bufferCount
        self.marksSeconds = marksSeconds
        renderer = TestPatternRenderer(width: width, height: height, pixelFormat: pixelFormat)
        thread = SourceThread(sourceName: name, threadName: "test pattern")
    }

    /// Starts capturing on a dedicated thread.
    /// - Throws: ``SourceError`` with ``SourceError/Code/alreadyRunning`` while capturing.
    public func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {
        let renderer = self.renderer, live = isLive, limit = frameLimit.map(UInt64.init) ?? .max, marks = marksSeconds
        let pool = PixelBufferPool(bufferSize: format.pixelFormat.byteCount(width: format.width, height: format.height),
                                   count: bufferCount)
        let rate = format.frameRate
        try thread.start { run in
            let (timeline, first) = marks && live
                ? SyncMarkClock.timeline(count: UInt64(rate.frames), seconds: UInt64(rate.seconds))
                : (CaptureTimeline(start: MonotonicClock.now(), count: UInt64(rate.frames), seconds: UInt64(rate.seconds)), 0)
            var n = first
            while !run.isStopRequested {
                guard n - first < limit else { return run.finish { handler(.ended) } }
                let due = timeline.time(of: n)
                if live {
                    guard run.wait(until: due) else { return }
                    // A whole frame time late or more: those frames were never captured.
                    let index = timeline.index(at: MonotonicClock.now())
                    let current = limit == .max ? index : min(index, first + limit)
                    if current > n {
                        handler(.dropped(count: Int(current - n)))
                        n = current
                        continue
                    }
                }
                guard let lease = pool.lease(live: live, run: run) else {
                    if live { handler(.dropped(count: 1)) }
                    n += 1
                    continue
                }
                if marks && SyncMarkClock.isMark(n, count: UInt64(rate.frames), seconds: UInt64(rate.seconds)) {
                    renderer.renderWhite(into: lease.base)
                } else {
                    renderer.render(frame: n, into: lease.base)
                }
                handler(.frame(VideoFrame(packed: lease.base, width: renderer.width, height: renderer.height,
                                          pixelFormat: renderer.pixelFormat, timestamp: due, sequenceNumber: n,
                                          storage: lease)))
                n += 1
            }
        }
    }

    /// Stops capturing and waits for the capture thread to end.
    public func stop() { thread.stop() }
}
