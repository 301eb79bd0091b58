import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An output that captures still photos as JPEG or HEIF files, as `AVCapturePhotoOutput` does.
///
/// Add it to a ``CaptureSession`` and start the session, then call
/// ``capturePhoto(to:overwrite:settings:)``. With zero shutter lag (on by default) the output
/// keeps copies of the last half second of frames and takes the one captured closest to the
/// moment of the call; without it, the next frame. Like a camera, it never rotates pixels: the
/// rotation and mirroring go into a JPEG's Exif `Orientation` (1–8) or a HEIF image's `irot`
/// and `imir` properties, which viewers apply.
///
/// With responsive capture a new photo starts while earlier ones are still being encoded, up to
/// ``maximumPhotosInFlight``; results and ``events`` keep request order. With deferred delivery
/// `capturePhoto` returns a proxy file as soon as the frame is chosen and the full photo
/// replaces it later. A ``PhotoOutputReadinessCoordinator`` tells a shutter button when to
/// take the next photo. The Photos article has the details and the measured costs.
///
/// Encoding and writing run on dedicated threads; the frames are copies, so a photo never holds
/// a camera buffer, and an output can serve a ``MovieFileOutput``'s session at the same time.
public final class PhotoOutput: OutputService, MediaReceiver {
    /// A frame chosen for a photo, how it was chosen and the wall-clock second it was taken.
    struct ChosenFrame: Sendable {
        var frame: VideoFrame
        /// When the frame reached the output (monotonic nanoseconds).
        var arrival: UInt64
        var fromRing: Bool
        var unixSeconds: Int
    }

    /// A request, from its call until its frame is chosen.
    struct FrameRequest {
        var moment: UInt64
        var zeroShutterLag: Bool
        /// Whether frame timestamps are capture times on the monotonic clock, comparable to `moment`.
        var isLive: Bool
        var uniqueID: Int64
        /// With zero shutter lag, the kept frames of its moment, held from the call on.
        var held: [RecentFrameRing.Entry] = []
        /// Set once it has looked at the kept frames and waits for a new one.
        var continuation: CheckedContinuation<ChosenFrame, any Error>?
        var timer: Task<Void, Never>?
        var cancelled = false
    }

    /// A coordinator's link: its stream, its tracked requests and what it last reported.
    struct ReadinessLink {
        var continuation: AsyncStream<CaptureReadiness>.Continuation
        var delivery: SerialDelivery
        var tracked: [Int64: TrackedPhase] = [:]
        var last: CaptureReadiness?
    }

    struct State {
        var angle: Double = 0
        var mirrored = false
        var make: String?
        var model: String?
        var frameTimeout: Duration = .seconds(2)
        var sources: SourceDescription?
        var zeroShutterLag = true
        var ringLimits = RecentFrameRing.Limits(duration: 500_000_000, memoryLimit: 64 << 20, photosInFlight: 4)
        var responsive = false
        var responsiveLimit = 4
        var fastPrioritization = false
        var deferred = false
        var requests: [UInt64: FrameRequest] = [:]
        var lastRequestID: UInt64 = 0
        /// When the frame last taken from a file reached the output: the next file photo takes a later one.
        var lastFileFrameArrival: UInt64 = 0
        var slots = PhotoSlots()
        var returns = TurnSequence()
        var reports = TurnSequence()
        var links: [ObjectIdentifier: ReadinessLink] = [:]

        var limit: Int { responsive ? responsiveLimit : 1 }
        /// Whether a request has looked at the kept frames and waits for a new one.
        var isWaitingForFrames: Bool { requests.values.contains { $0.continuation != nil } }
        /// Whether a file source should read another frame: more file photos wait than kept
        /// frames are there for them to take, so no frame is read that nobody takes.
        func needsFileFrame(_ kept: [RecentFrameRing.Entry]) -> Bool {
            let waiting = requests.values.filter { !$0.isLive && $0.continuation != nil }
            guard let oldest = waiting.map(\.moment).min() else { return false }
            let floor = max(lastFileFrameArrival, oldest)
            return waiting.count > kept.count(where: { $0.arrival > floor })
        }
        /// Whether frames must reach the ring: kept for zero shutter lag, or wanted by a request.
        var wantsFrames: Bool {
            guard let video = sources?.video else { return false }
            return (zeroShutterLag && video.isLive) || !requests.isEmpty
        }
    }

    let state = LockedValue(State())
    /// The session this output belongs to.
    let sessionClaim = SessionClaim()
    let eventContinuation: AsyncStream<Event>.Continuation
    /// The copies of recent frames; its thread runs while the output exists.
    let ring: RecentFrameRing

    /// What happened to each photo, in request order; buffers the newest 64 events for a slow
    /// reader.
    public let events: AsyncStream<Event>

    /// Creates a photo output at angle 0, unmirrored.
    /// - Parameters:
    ///   - make: The camera's manufacturer for Exif `Make`; `nil` leaves the tag out.
    ///   - model: The camera's model for Exif `Model`; `nil` writes the video input's name.
    public init(make: String? = nil, model: String? = nil) {
        (events, eventContinuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let box = WeakBox<PhotoOutput>()
        ring = RecentFrameRing(limits: State().ringLimits, appended: { box.value?.ringAppended() },
                               settled: { box.value?.ringSettled() })
        box.value = self
        state.withLock { s in
            s.make = make
            s.model = model
        }
    }

    deinit {
        ring.close()
        eventContinuation.finish()
    }

    /// The manufacturer written as Exif `Make` when the settings name none; `nil` leaves the tag
    /// out.
    public var make: String? {
        get { state.withLock { $0.make } }
        set { state.withLock { $0.make = newValue } }
    }

    /// The model written as Exif `Model` when the settings name none; `nil` writes the video
    /// input's name (for a `TestPatternSource`, "test pattern").
    public var model: String? {
        get { state.withLock { $0.model } }
        set { state.withLock { $0.model = newValue } }
    }

    /// How long ``capturePhoto(to:overwrite:settings:)`` waits for a frame before it throws
    /// `PhotoError.Code.timedOut`; 2 seconds by default.
    public var frameTimeout: Duration {
        get { state.withLock { $0.frameTimeout } }
        set { state.withLock { $0.frameTimeout = newValue } }
    }

    // MARK: OutputService

    /// The clockwise rotation, in degrees, written into the orientation of photos.
    public var videoRotationAngle: Double { state.withLock { $0.angle } }
    /// A Boolean value that indicates whether the orientation of photos mirrors the picture.
    public var isVideoMirrored: Bool { state.withLock { $0.mirrored } }

    /// Sets the rotation written into photos requested from now on; the pixels are never rotated.
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    public func setVideoRotationAngle(_ angle: Double) throws(OrientationError) {
        _ = try VideoOrientation(rotationAngle: angle)
        state.withLock { $0.angle = angle }
    }

    /// Sets whether photos requested from now on are marked as mirrored in their orientation.
    public func setVideoMirrored(_ mirrored: Bool) {
        state.withLock { $0.mirrored = mirrored }
    }
}
