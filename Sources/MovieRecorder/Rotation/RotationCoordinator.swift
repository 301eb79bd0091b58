import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
import Synchronization

/// An object that reports, for one camera, how far to rotate video so it is level with the
/// horizon — like `AVCaptureDevice.RotationCoordinator`.
///
/// The capture angle combines the device's rotation (from a ``GravitySource``) with how the
/// camera is mounted (`CameraMounting`, from the V4L2 driver or the application). The preview
/// angle also accounts for how the display showing the preview is rotated, so the two can
/// differ. Both are readable now and observable — as an `AsyncStream` or a callback — with
/// changes delivered in order.
///
/// A coordinator is bound to one camera for its lifetime: switching cameras means a new
/// coordinator. Call ``invalidate()`` when done; it stops listening to gravity and ends the
/// streams.
public final class RotationCoordinator: Sendable {
    /// The mounting of the camera this coordinator serves.
    public let mounting: CameraMounting
    /// The camera's name, for messages.
    public let cameraName: String

    /// A registered callback; ``RotationObservation/cancel()`` turns it off, also for a delivery
    /// already queued.
    private final class Listener: Sendable {
        let handler: @Sendable (Double) -> Void
        let isActive = Atomic<Bool>(true)
        init(_ handler: @escaping @Sendable (Double) -> Void) { self.handler = handler }
    }

    /// One angle (capture or preview) and whoever listens to it.
    private struct Angle {
        var degrees: Int
        var listeners: [UInt64: Listener] = [:]
        var streams: [UInt64: AsyncStream<Double>.Continuation] = [:]

        /// Stores a new value and queues it for the listeners, callbacks in registration order;
        /// they run when `delivery` is drained, after the coordinator's lock is released.
        mutating func set(_ value: Int, delivery: SerialDelivery) {
            guard value != degrees else { return }
            degrees = value
            let angle = Double(value)
            for listener in listeners.sorted(by: { $0.key < $1.key }).map(\.value) {
                delivery.enqueue { if listener.isActive.load(ordering: .acquiring) { listener.handler(angle) } }
            }
            for continuation in streams.values { delivery.enqueue { continuation.yield(angle) } }
        }

        /// Turns every listener off and forgets them and the streams.
        mutating func clear() -> [AsyncStream<Double>.Continuation] {
            for listener in listeners.values { listener.isActive.store(false, ordering: .releasing) }
            defer { listeners = [:]; streams = [:] }
            return Array(streams.values)
        }
    }

    private struct State {
        var estimator = DeviceRotationEstimator()
        var capture: Angle
        var preview: Angle
        var displayRotation: Int
        var nextToken: UInt64 = 0
        var invalidated = false
    }

    private let state: LockedValue<State>
    /// Where angle changes wait for their listeners: queued under `state`'s lock, in order, and
    /// delivered after it is released.
    private let delivery = SerialDelivery()
    private let subscription: GravitySubscription?

    /// Creates a coordinator for `camera`.
    ///
    /// - Parameters:
    ///   - camera: the camera; a `V4L2Camera` supplies its driver-reported mounting.
    ///   - mounting: overrides what the driver reports (or supplies it for cameras that don't).
    ///   - gravitySource: the device's gravity; `nil` keeps the device upright.
    ///   - previewDisplayRotation: how the display showing the preview is rotated clockwise
    ///     from the device's natural orientation (0, 90, 180, 270).
    /// - Throws: whatever the gravity source throws when it starts.
    public init(camera: any VideoSource, mounting: CameraMounting? = nil, gravitySource: (any GravitySource)?,
                previewDisplayRotation: Int = 0) throws {
        let mount = mounting ?? (camera as? V4L2Camera)?.mounting ?? .unknown
        self.mounting = mount
        cameraName = camera.name
        let display = Self.normalize(previewDisplayRotation)
        let initial = Self.captureAngle(deviceRotation: 0, mounting: mount)
        state = LockedValue(State(capture: Angle(degrees: initial), preview: Angle(degrees: Self.normalize(initial - display)),
                            displayRotation: display))
        guard let gravitySource else {
            subscription = nil
            return
        }
        let box = WeakBox<RotationCoordinator>()
        subscription = try GravitySubscription(source: gravitySource) { box.value?.update(with: $0) }
        box.value = self
        if let current = gravitySource.currentGravity { update(with: current) }
    }

    /// The clockwise angle, in degrees, to apply to captured video so it is level with the
    /// horizon: what outputs record with.
    public var videoRotationAngleForHorizonLevelCapture: Double { Double(state.withLock { $0.capture.degrees }) }

    /// The clockwise angle, in degrees, to apply to the preview so it shows level on its display.
    public var videoRotationAngleForHorizonLevelPreview: Double { Double(state.withLock { $0.preview.degrees }) }

    /// How the preview's display is rotated clockwise; changing it updates the preview angle.
    public var previewDisplayRotation: Int {
        get { state.withLock { $0.displayRotation } }
        set {
            state.withLock { s in
                s.displayRotation = Self.normalize(newValue)
                publish(&s, capture: s.capture.degrees)
            }
            delivery.drain()
        }
    }

    /// The capture angles from now on, starting with the current one. Delivered in order; a
    /// consumer that falls far behind (16 pending) loses the oldest.
    public func captureAngleUpdates() -> AsyncStream<Double> { updates(of: \.capture) }

    /// The preview angles from now on, starting with the current one.
    public func previewAngleUpdates() -> AsyncStream<Double> { updates(of: \.preview) }

    /// Calls `handler` with each new capture angle, synchronously and in order, on the thread
    /// that reports gravity. Keep the returned observation; ``RotationObservation/cancel()``
    /// ends it.
    public func observeCaptureAngle(_ handler: @escaping @Sendable (Double) -> Void) -> RotationObservation {
        observe(\.capture, handler)
    }

    /// Calls `handler` with each new preview angle, synchronously and in order.
    public func observePreviewAngle(_ handler: @escaping @Sendable (Double) -> Void) -> RotationObservation {
        observe(\.preview, handler)
    }

    private func updates(of angle: WritableKeyPath<State, Angle> & Sendable) -> AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(16))
        state.withLock { s in
            guard !s.invalidated else { return delivery.enqueue { continuation.finish() } }
            let current = Double(s[keyPath: angle].degrees)
            delivery.enqueue { continuation.yield(current) }
            s.nextToken += 1
            let token = s.nextToken
            s[keyPath: angle].streams[token] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0[keyPath: angle].streams.removeValue(forKey: token) }
            }
        }
        delivery.drain()
        return stream
    }

    private func observe(_ angle: WritableKeyPath<State, Angle> & Sendable,
                         _ handler: @escaping @Sendable (Double) -> Void) -> RotationObservation {
        let listener = Listener(handler)
        let token = state.withLock { s in
            s.nextToken += 1
            if !s.invalidated { s[keyPath: angle].listeners[s.nextToken] = listener }
            return s.nextToken
        }
        return RotationObservation { [weak self] in
            listener.isActive.store(false, ordering: .releasing)
            self?.state.withLock { _ = $0[keyPath: angle].listeners.removeValue(forKey: token) }
        }
    }

    /// Stops listening to gravity, ends the streams and drops the callbacks. No callback starts
    /// after this returns; one already running on another thread finishes.
    public func invalidate() {
        subscription?.cancel()
        state.withLock { s in
            s.invalidated = true
            let streams = s.capture.clear() + s.preview.clear()
            for continuation in streams { delivery.enqueue { continuation.finish() } }
        }
        delivery.drain()
    }

    deinit { subscription?.cancel() }

    /// Takes a gravity reading: updates the device rotation and, when an angle changes, tells
    /// the observers — queued inside the lock, so deliveries never reorder, and delivered after
    /// it, so no observer's code runs while the lock is held.
    func update(with gravity: GravityVector) {
        state.withLock { s in
            guard !s.invalidated, let rotation = s.estimator.update(gravity) else { return }
            publish(&s, capture: Self.captureAngle(deviceRotation: rotation, mounting: mounting))
        }
        delivery.drain()
    }

    private func publish(_ s: inout State, capture: Int) {
        s.capture.set(capture, delivery: delivery)
        s.preview.set(Self.normalize(capture - s.displayRotation), delivery: delivery)
    }

    /// The capture angle for a device rotated `deviceRotation` degrees clockwise.
    ///
    /// Turning a back camera clockwise turns the scene counter-clockwise in its pictures, so the
    /// correction adds the device's rotation; a front camera looks the other way, so it
    /// subtracts. A camera that does not turn with the device keeps its mounting correction.
    static func captureAngle(deviceRotation: Int, mounting: CameraMounting) -> Int {
        guard mounting.followsDeviceGravity else { return mounting.sensorRotation }
        switch mounting.position {
        case .front: return normalize(mounting.sensorRotation - deviceRotation)
        case .back, .external: return normalize(mounting.sensorRotation + deviceRotation)
        }
    }

    static func normalize(_ degrees: Int) -> Int { ((degrees % 360) + 360) % 360 }
}
