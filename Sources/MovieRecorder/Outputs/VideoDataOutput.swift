import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An output that hands video frames to the application — for analysis such as object
/// detection — like `AVCaptureVideoDataOutput`.
///
/// Frames arrive through ``frames``, an `AsyncStream` the application iterates on its own task,
/// so a slow consumer never stalls capture or recording. With
/// ``alwaysDiscardsLateVideoFrames`` (the default) only the newest frame waits: a frame not yet
/// taken when the next arrives is discarded and counted. Otherwise up to two frames wait and
/// newer ones are discarded while both are pending (each waiting frame may hold a camera
/// buffer, so the queue stays short). Each frame carries the output's rotation angle and
/// mirroring at the moment it was captured; the pixels are not rotated.
public final class VideoDataOutput: OutputService, MediaReceiver {
    /// A captured picture with the orientation to show it in.
    public struct Frame: Sendable {
        /// The picture, as the source delivered it.
        public let frame: VideoFrame
        /// The clockwise angle to rotate the picture by to show it level.
        public let rotationAngle: Double
        /// Whether to flip it left to right after rotating.
        public let isMirrored: Bool
    }

    private struct State {
        var angle: Double = 0
        var mirrored = false
        var dropped = 0
        var delivered = 0
    }

    private let state = LockedValue(State())
    private let continuation: AsyncStream<Frame>.Continuation
    /// The frames, for one consumer.
    public let frames: AsyncStream<Frame>
    /// The late-frame policy, fixed at creation: `true` keeps only the newest frame.
    public let alwaysDiscardsLateVideoFrames: Bool

    /// Creates an output with the given late-frame policy.
    /// - Parameter alwaysDiscardsLateVideoFrames: `true` to keep only the newest frame waiting;
    ///   `false` to keep up to two.
    public init(alwaysDiscardsLateVideoFrames: Bool = true) {
        self.alwaysDiscardsLateVideoFrames = alwaysDiscardsLateVideoFrames
        (frames, continuation) = AsyncStream.makeStream(
            of: Frame.self, bufferingPolicy: alwaysDiscardsLateVideoFrames ? .bufferingNewest(1) : .bufferingOldest(2))
    }

    deinit { continuation.finish() }

    /// Frames discarded because the consumer had not taken the previous ones.
    public var droppedFrameCount: Int { state.withLock { $0.dropped } }
    /// Frames handed to the stream.
    public var deliveredFrameCount: Int { state.withLock { $0.delivered } }

    /// The clockwise rotation, in degrees, that frames delivered from now on carry.
    public var videoRotationAngle: Double { state.withLock { $0.angle } }
    /// A Boolean value that indicates whether frames delivered from now on are marked as mirrored.
    public var isVideoMirrored: Bool { state.withLock { $0.mirrored } }

    /// Sets the rotation the next frames carry; the pixels are not rotated.
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    public func setVideoRotationAngle(_ angle: Double) throws(OrientationError) {
        _ = try VideoOrientation(rotationAngle: angle)
        state.withLock { $0.angle = angle }
    }

    /// Sets whether the next frames are marked as mirrored.
    public func setVideoMirrored(_ mirrored: Bool) { state.withLock { $0.mirrored = mirrored } }

    /// The session this output belongs to.
    let sessionClaim = SessionClaim()

    func connect(_ sources: SourceDescription) {}
    func disconnect(_ reason: DisconnectReason) {}
    var isConsumingMedia: Bool { true }
    func receive(_ event: AudioSourceEvent) {}

    func receive(_ event: VideoSourceEvent) {
        guard case .frame(let frame) = event else { return }
        let (angle, mirrored) = state.withLock { ($0.angle, $0.mirrored) }
        let result = continuation.yield(Frame(frame: frame, rotationAngle: angle, isMirrored: mirrored))
        state.withLock { s in
            switch result {
            case .enqueued: s.delivered += 1
            case .dropped: s.dropped += 1; s.delivered += alwaysDiscardsLateVideoFrames ? 1 : 0
            case .terminated: break
            @unknown default: break
            }
        }
    }
}
