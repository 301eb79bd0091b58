import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

extension PhotoOutput {
    /// A Boolean value that indicates whether zero shutter lag is available: always, since the
    /// output keeps its own copies of recent frames whatever the source.
    public var isZeroShutterLagSupported: Bool { true }

    /// A Boolean value that indicates whether a photo takes the kept frame captured closest to
    /// the moment of the call (on by default, as on iOS 17), rather than the next frame.
    ///
    /// While it is on, every frame of a live source is copied once into a pooled buffer on the
    /// output's own thread (0.16–0.34 ms of CPU for a 1080p frame, measured; see the Photos
    /// article); the capture thread only hands over a reference. Turning it off stops the copies: a frame
    /// is then copied only when a photo wants it. A file source has no moment of capture to
    /// match: its photos take the next frame read.
    public var isZeroShutterLagEnabled: Bool {
        get { state.withLock { $0.zeroShutterLag } }
        set {
            state.withLock { $0.zeroShutterLag = newValue }
            if !newValue { ring.clear() }
        }
    }

    /// How far back zero shutter lag keeps frames; half a second by default, at most 5 seconds.
    public var zeroShutterLagDuration: Duration {
        get { .nanoseconds(Int64(state.withLock { $0.ringLimits.duration })) }
        set {
            let clamped = max(.zero, min(newValue, .seconds(5))).components
            updateRing { $0.duration = UInt64(clamped.seconds) * 1_000_000_000 + UInt64(clamped.attoseconds / 1_000_000_000) }
        }
    }

    /// The memory the kept frames and the photos being encoded may hold, in bytes; 64 MiB by
    /// default (about 20 frames at 1080p), at most 1 GiB. When it holds fewer frames than
    /// ``zeroShutterLagDuration`` asks for, the newest fit. Whatever the limit, the pool has two
    /// buffers more than ``responsiveCaptureLimit``, so a photo in flight never stops the copies.
    public var zeroShutterLagMemoryLimit: Int {
        get { state.withLock { $0.ringLimits.memoryLimit } }
        set { updateRing { $0.memoryLimit = max(0, min(newValue, 1 << 30)) } }
    }

    private func updateRing(_ change: (inout RecentFrameRing.Limits) -> Void) {
        let limits = state.withLock { s in
            change(&s.ringLimits)
            return s.ringLimits
        }
        ring.setLimits(limits)
    }

    /// A Boolean value that indicates whether responsive capture is available: always.
    public var isResponsiveCaptureSupported: Bool { true }

    /// A Boolean value that indicates whether a photo may start while earlier ones are still
    /// being encoded (off by default, as on iOS). Off, one photo is in flight at a time and the
    /// next call waits for it.
    public var isResponsiveCaptureEnabled: Bool {
        get { state.withLock { $0.responsive } }
        set { changeLimit { $0.responsive = newValue } }
    }

    /// With responsive capture, how many photos may be in flight — chosen and not yet written —
    /// at once: 4 by default, 1–16. Each holds its frame (3 MB at 1080p) and its encoder's memory
    /// (up to about 100 MB for HEIF at 1080p); a request beyond it waits for one to finish.
    public var responsiveCaptureLimit: Int {
        get { state.withLock { $0.responsiveLimit } }
        set {
            changeLimit { $0.responsiveLimit = max(1, min(16, newValue)) }
            updateRing { [limit = max(1, min(16, newValue))] in $0.photosInFlight = limit }
        }
    }

    /// How many photos may be in flight now: ``responsiveCaptureLimit`` with responsive capture,
    /// else 1.
    public var maximumPhotosInFlight: Int { state.withLock { $0.limit } }

    /// A Boolean value that indicates whether fast capture prioritization is available: always.
    public var isFastCapturePrioritizationSupported: Bool { true }

    /// A Boolean value that indicates whether a photo requested while another is still in
    /// flight is encoded with ``PhotoQualityPrioritization/speed`` whatever its settings ask, so
    /// a burst keeps its pace at a lower quality (off by default, as on iOS).
    public var isFastCapturePrioritizationEnabled: Bool {
        get { state.withLock { $0.fastPrioritization } }
        set { state.withLock { $0.fastPrioritization = newValue } }
    }

    /// A Boolean value that indicates whether deferred delivery is available: always.
    public var isAutoDeferredPhotoDeliverySupported: Bool { true }

    /// A Boolean value that indicates whether `capturePhoto` returns a proxy — a picture reduced
    /// to at most 640 pixels on its longer side, with the final metadata, already on disk — as
    /// soon as the frame is chosen; the full photo then replaces it in one rename, reported by
    /// ``Event/didFinishDeferredPhoto(_:)``. Off by default. A crash in between leaves the proxy.
    /// While a recording of the session gives way under pressure
    /// (``MovieFileOutput/degradesUnderPressure``), the full photo waits until it has its frames
    /// back, at most a minute.
    public var isAutoDeferredPhotoDeliveryEnabled: Bool {
        get { state.withLock { $0.deferred } }
        set { state.withLock { $0.deferred = newValue } }
    }

    /// Changes what bounds the photos in flight and admits waiting requests a higher bound allows.
    private func changeLimit(_ change: @Sendable (inout State) -> Void) {
        let admitted = mutate { s in
            change(&s)
            return s.slots.admitWaiting(limit: s.limit)
        }
        for (waiter, admission) in admitted { waiter.resume(returning: admission) }
    }

    /// Returns when every photo requested so far is written, deferred ones included: before a
    /// program that took photos exits.
    public func finishProcessing() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { $0.slots.waitUntilIdle(continuation) }
            now?.resume()
        }
    }
}
