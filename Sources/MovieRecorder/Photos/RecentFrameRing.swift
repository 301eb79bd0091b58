import MoviePlatform
import MovieCapture

/// The most recent frames a ``PhotoOutput`` can take a photo from: copies in pooled buffers, so
/// the camera's own buffers go back to the driver at once.
///
/// The capture thread only offers a reference to a queue of two (``offer(_:arrival:)``, never
/// waiting; a frame that finds it full is skipped). The ring's thread copies it into a buffer
/// from a pool allocated once per picture size and keeps the copies captured within `duration` of
/// the newest. The pool holds `memoryLimit` bytes of pictures, and two buffers more than the
/// photos in flight can hold: when the copies and the photos being encoded hold every buffer,
/// the oldest copies are let go until one comes back. Nothing waits for memory.
final class RecentFrameRing: Sendable {
    /// A kept frame and when it reached the output (monotonic nanoseconds).
    struct Entry: Sendable {
        var frame: VideoFrame
        var arrival: UInt64
    }

    struct Limits: Sendable, Equatable {
        /// How far back copies are kept, in nanoseconds; 0 keeps only the newest.
        var duration: UInt64
        /// The bytes of pictures the pool may hold.
        var memoryLimit: Int
        /// The most photos in flight, each holding one buffer: the pool has two more than this
        /// whatever the memory limit, so a new frame can always be copied.
        var photosInFlight: Int
    }

    /// What the capture thread hands over, with the ring's generation when it was handed over:
    /// a frame, or work to run after the frames before it.
    private enum Item: Sendable {
        case frame(Entry, generation: UInt64)
        case after(@Sendable () -> Void, generation: UInt64)
    }

    private struct State {
        var entries: [Entry] = []
        var limits: Limits
        var pool: PixelBufferPool?
        /// Frames handed over and not yet kept or skipped.
        var pending = 0
        /// Raised by ``clear()``: what was handed over before belongs to an earlier session.
        var generation: UInt64 = 0
    }

    private let state: LockedValue<State>
    private let incoming = BoundedQueue<Item>(capacity: 4)
    private let thread: DedicatedThread

    /// Starts the ring's thread; `appended` runs on it after each copy is kept, outside the
    /// ring's lock, and `settled` after each frame handed over is kept or skipped and no longer
    /// counts in ``isBusy``.
    init(limits: Limits, appended: @escaping @Sendable () -> Void, settled: @escaping @Sendable () -> Void) {
        state = LockedValue(State(limits: limits))
        let incoming = self.incoming, state = self.state
        thread = DedicatedThread(name: "movrec-photo-ring") {
            while let item = incoming.pop() {
                switch item {
                case .frame(let entry, let generation):
                    // Busy until the photos waiting have seen the frame, so a file source reads
                    // no frame that nobody would take.
                    if state.withLock({ $0.generation == generation }), Self.keep(entry, in: state) { appended() }
                    state.withLock { $0.pending -= 1 }
                    settled()
                case .after(let work, let generation):
                    if state.withLock({ $0.generation == generation }) { work() }
                }
            }
        }
    }

    /// Hands a frame to the ring's thread without waiting; returns false when it was skipped
    /// (two frames are already waiting to be copied).
    @discardableResult
    func offer(_ frame: VideoFrame, arrival: UInt64) -> Bool {
        state.withLock { s in
            guard s.pending < 2, incoming.offer(.frame(Entry(frame: frame, arrival: arrival), generation: s.generation)) else { return false }
            s.pending += 1
            return true
        }
    }

    /// Runs `work` on the ring's thread once the frames handed over before it are kept: the end
    /// of a source comes after its last frame.
    func afterQueuedFrames(_ work: @escaping @Sendable () -> Void) {
        let generation = state.withLock { $0.generation }
        if !incoming.push(.after(work, generation: generation)) { work() }
    }

    /// A Boolean value that indicates whether frames are waiting to be copied.
    var isBusy: Bool { state.withLock { $0.pending > 0 } }

    /// The kept frames, oldest first.
    var entries: [Entry] { state.withLock { $0.entries } }

    /// Changes how much is kept; copies beyond the new limits go at the next frame.
    func setLimits(_ limits: Limits) {
        state.withLock { s in
            if s.limits.memoryLimit != limits.memoryLimit || s.limits.photosInFlight != limits.photosInFlight { s.pool = nil }
            s.limits = limits
        }
    }

    /// Lets every kept copy go, and whatever was handed over before (the session stopped, or
    /// zero shutter lag was turned off).
    func clear() {
        let released = state.withLock { s in
            s.generation += 1
            defer { s.entries = [] }
            return s.entries
        }
        _ = released  // released here, outside the lock
    }

    /// Ends the thread once the queued frames are copied, without waiting for it: the output's
    /// last reference may go on that thread itself.
    func close() {
        incoming.close()
        thread.detach()
    }

    /// Copies `entry`'s frame into the pool and keeps it, trimming what is too old.
    private static func keep(_ entry: Entry, in state: LockedValue<State>) -> Bool {
        let frame = entry.frame
        let size = frame.pixelFormat.byteCount(width: frame.width, height: frame.height)
        var dropped: [Entry] = []
        defer { _ = dropped }  // released after the lock
        let pool: PixelBufferPool = state.withLock { s in
            if let pool = s.pool, pool.bufferSize == size { return pool }
            dropped += s.entries
            s.entries = []
            let pool = PixelBufferPool(bufferSize: size, count: max(s.limits.photosInFlight + 2, s.limits.memoryLimit / max(1, size)))
            s.pool = pool
            return pool
        }
        var copy = frame.copied(into: pool)
        while copy == nil {
            // Every buffer is out: let the oldest kept copy go at once (its buffer comes back to
            // the pool, a leaf lock) and try again, until only the photos being encoded hold
            // buffers.
            let evicted = state.withLock { s in
                guard !s.entries.isEmpty else { return false }
                s.entries.removeFirst()
                return true
            }
            guard evicted else { break }
            copy = frame.copied(into: pool)
        }
        guard let copy else { return false }
        state.withLock { s in
            s.entries.append(Entry(frame: copy, arrival: entry.arrival))
            let horizon = copy.timestamp > s.limits.duration ? copy.timestamp - s.limits.duration : 0
            let stale = s.entries.prefix { $0.frame.timestamp < horizon }.count
            let keep = s.limits.duration == 0 ? s.entries.count - 1 : stale
            dropped += s.entries.prefix(keep)
            s.entries.removeFirst(keep)
        }
        return true
    }
}
