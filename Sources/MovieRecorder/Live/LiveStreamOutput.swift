import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// An output that streams what the camera sees, live, as CMAF fragmented MP4 — what a
/// ``LiveViewServer`` serves to browsers and HLS players and an ``HLSDirectoryWriter`` writes
/// to disk, and what the application can take itself through ``segments``, as
/// `AVAssetWriter` hands out segment data.
///
/// The stream is a second, small encode beside the recording, as IP cameras make a sub-stream:
/// each picture is scaled (``LiveStreamSettings/maximumWidth``) and encoded by libx264 with
/// the `zerolatency` tune, one chunk (`prft` + `moof` + `mdat`) per picture, so a browser shows
/// it a frame's encode after capture. A ``MovieFileOutput`` in the same session records its own
/// encode, untouched; a session without one streams just the same.
///
/// Add it to a session like any output. Its angle is the horizon-level angle: the capture
/// service applies it as to every output, and as a ``PreviewTarget`` (a browser's display is
/// not turned with the device) it takes the rotation coordinator's preview angle. A change of
/// angle or mirroring reaches the preview page in the stream (an `emsg`) and HLS players in a
/// new initialization segment after a discontinuity; the pixels are never turned.
///
/// A viewer can never hold up capture or the recording: pictures are copied and offered to a
/// short queue, and dropped and counted (``droppedFrameCount``) when the stream's encoder is
/// behind.
public final class LiveStreamOutput: OutputService, PreviewTarget, MediaReceiver {
    private struct State {
        var orientation = VideoOrientation.up
        var pipeline: LiveStreamPipeline?
        /// Streams stopped whose threads ``finishDisconnecting()`` has not joined yet.
        var stopping: [LiveStreamPipeline] = []
        var lastError: LiveViewError?
        var totals = LiveStreamPipeline.Statistics()
    }

    private let state = LockedValue(State())
    private let continuation: AsyncStream<LiveSegment>.Continuation
    /// The settings the stream was created with.
    public let settings: LiveStreamSettings
    /// The stream's pieces, in order: an initialization segment when a stream starts and when
    /// the orientation changes, then each part as it completes. The newest 32 (about six
    /// seconds) are kept when the application reads slower than they come, or not at all.
    public let segments: AsyncStream<LiveSegment>
    let hub = LiveStreamHub()
    /// The stream's access units for an ``RTSPServer``.
    let encodedTap = EncodedStreamTap()

    /// Creates an output with the given settings.
    public init(settings: LiveStreamSettings = LiveStreamSettings()) {
        self.settings = settings
        (segments, continuation) = AsyncStream.makeStream(of: LiveSegment.self, bufferingPolicy: .bufferingNewest(32))
    }

    deinit {
        continuation.finish()
        hub.shutDown()
    }

    /// Pictures streamed, over every stream of this output.
    public var streamedFrameCount: Int { statistics.streamedFrames }
    /// Pictures left out of the stream because its encoder was behind (the recording keeps
    /// them).
    public var droppedFrameCount: Int { statistics.droppedFrames }
    /// Why the last stream could not start (libyuv, libx264 or the AAC encoder could not
    /// open), if it could not; `nil` otherwise. The session and its other outputs run on.
    public var lastError: LiveViewError? { state.withLock { $0.lastError } }
    /// A Boolean value that indicates whether a stream runs now.
    public var isStreaming: Bool { state.withLock { $0.pipeline != nil && $0.lastError == nil } }

    private var statistics: LiveStreamPipeline.Statistics {
        let (totals, pipeline) = state.withLock { ($0.totals, $0.pipeline) }
        guard let current = pipeline?.statistics.withLock({ $0 }) else { return totals }
        return totals + current
    }

    // MARK: OutputService and PreviewTarget

    /// The clockwise angle, in degrees, the stream's pictures are shown at.
    public var videoRotationAngle: Double { Double(state.withLock { $0.orientation.rotationAngle }) }
    /// A Boolean value that indicates whether the stream's pictures are shown mirrored.
    public var isVideoMirrored: Bool { state.withLock { $0.orientation.isMirrored } }

    /// Sets the angle the pictures are shown at from the next picture on.
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    public func setVideoRotationAngle(_ angle: Double) throws(OrientationError) {
        let mirrored = isVideoMirrored
        let orientation = try VideoOrientation(rotationAngle: angle, isMirrored: mirrored)
        state.withLock { $0.orientation = orientation }
    }

    /// Sets whether the pictures are shown mirrored from the next picture on.
    public func setVideoMirrored(_ mirrored: Bool) {
        state.withLock { s in
            if let turned = try? VideoOrientation(rotationAngle: Double(s.orientation.rotationAngle), isMirrored: mirrored) {
                s.orientation = turned
            }
        }
    }

    /// A browser's display is not turned with the device: 0.
    public var displayRotation: Int { 0 }

    /// Applies the rotation coordinator's horizon-level preview angle; angles other than 0, 90,
    /// 180 and 270 are ignored.
    public func setPreviewRotationAngle(_ angle: Double) { try? setVideoRotationAngle(angle) }

    // MARK: MediaReceiver

    let sessionClaim = SessionClaim()
    var isConsumingMedia: Bool { state.withLock { $0.pipeline != nil } }

    func connect(_ sources: SourceDescription) {
        guard let video = sources.video else { return }
        let continuation = self.continuation
        let pipeline = LiveStreamPipeline(settings: settings, video: video.format, audio: sources.audio?.format, hub: hub, tap: encodedTap,
                                          orientation: { [state] in state.withLock { $0.orientation } },
                                          deliver: { continuation.yield($0) },
                                          onFailure: { [state] error in state.withLock { $0.lastError = error } })
        let previous = state.withLock { s in
            defer { s.pipeline = pipeline; s.lastError = nil }
            if let old = s.pipeline { s.stopping.append(old) }
            return s.pipeline
        }
        hub.setOutputStopped(false)
        sources.pressure?.register(pipeline.shed)
        previous?.stop()
        pipeline.start()
        sources.wakeWaitingSources()
    }

    func disconnect(_ reason: DisconnectReason) {
        // New inputs connect it again at once; otherwise the stream's end ends the playlist.
        if reason != .inputsChanged { hub.setOutputStopped(true) }
        let pipeline = state.withLock { s in
            defer { s.pipeline = nil }
            if let old = s.pipeline { s.stopping.append(old) }
            return s.pipeline
        }
        pipeline?.stop()
    }

    /// Waits, on a dedicated thread, for the stopped streams' threads, and counts their frames.
    func finishDisconnecting() async {
        let stopped = state.withLock { s in defer { s.stopping = [] }; return s.stopping }
        guard !stopped.isEmpty else { return }
        _ = try? await runOnDedicatedThread(name: "movrec-live-stop") { for pipeline in stopped { pipeline.join() } }
        let finished = stopped.map { $0.statistics.withLock { $0 } }
        state.withLock { s in s.totals = finished.reduce(s.totals, +) }
    }

    func receive(_ event: VideoSourceEvent) {
        guard case .frame(let frame) = event, let pipeline = state.withLock({ $0.pipeline }) else { return }
        pipeline.receive(frame)
    }

    func receive(_ event: AudioSourceEvent) {
        guard case .buffer(let buffer) = event, let pipeline = state.withLock({ $0.pipeline }) else { return }
        pipeline.receive(buffer)
    }
}
