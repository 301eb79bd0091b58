import Synchronization

/// An object that reports, for one camera, how far to rotate video so it is level with the
/// horizon — like `AVCaptureDevice.RotationCoordinator`.
///
/// The capture angle combines the device's rotation (from a ``GravitySource``) with how the
/// camera is mounted (``CameraMounting``, from the V4L2 driver or the application). The preview
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

    private struct State {
        var estimator = DeviceRotationEstimator()
        var capture: Int
        var preview: Int
        var displayRotation: Int
        var captureCallbacks: [UInt64: @Sendable (Double) -> Void] = [:]
        var previewCallbacks: [UInt64: @Sendable (Double) -> Void] = [:]
        var captureStreams: [UInt64: AsyncStream<Double>.Continuation] = [:]
        var previewStreams: [UInt64: AsyncStream<Double>.Continuation] = [:]
        var nextToken: UInt64 = 0
        var invalidated = false
    }

    private let state: Mutex<State>
    private let subscription: GravitySubscription?

    /// Creates a coordinator for `camera`.
    ///
    /// - Parameters:
    ///   - camera: the camera; a ``V4L2Camera`` supplies its driver-reported mounting.
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
        state = Mutex(State(capture: initial, preview: Self.normalize(initial - display), displayRotation: display))
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
    public var videoRotationAngleForHorizonLevelCapture: Double { Double(state.withLock { $0.capture }) }

    /// The clockwise angle, in degrees, to apply to the preview so it shows level on its display.
    public var videoRotationAngleForHorizonLevelPreview: Double { Double(state.withLock { $0.preview }) }

    /// How the preview's display is rotated clockwise; changing it updates the preview angle.
    public var previewDisplayRotation: Int {
        get { state.withLock { $0.displayRotation } }
        set {
            state.withLock { s in
                s.displayRotation = Self.normalize(newValue)
                publish(&s, capture: s.capture)
            }
        }
    }

    /// The capture angles from now on, starting with the current one. Delivered in order; a
    /// consumer that falls far behind (16 pending) loses the oldest.
    public func captureAngleUpdates() -> AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(16))
        state.withLock { s in
            guard !s.invalidated else { return continuation.finish() }
            continuation.yield(Double(s.capture))
            s.nextToken += 1
            let token = s.nextToken
            s.captureStreams[token] = continuation
            continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.captureStreams.removeValue(forKey: token) } }
        }
        return stream
    }

    /// The preview angles from now on, starting with the current one.
    public func previewAngleUpdates() -> AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(16))
        state.withLock { s in
            guard !s.invalidated else { return continuation.finish() }
            continuation.yield(Double(s.preview))
            s.nextToken += 1
            let token = s.nextToken
            s.previewStreams[token] = continuation
            continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.previewStreams.removeValue(forKey: token) } }
        }
        return stream
    }

    /// Calls `handler` with each new capture angle, synchronously and in order, on the thread
    /// that reports gravity. Keep the returned observation; ``RotationObservation/cancel()``
    /// ends it.
    public func observeCaptureAngle(_ handler: @escaping @Sendable (Double) -> Void) -> RotationObservation {
        let token = state.withLock { s in
            s.nextToken += 1
            s.captureCallbacks[s.nextToken] = handler
            return s.nextToken
        }
        return RotationObservation { [weak self] in self?.state.withLock { _ = $0.captureCallbacks.removeValue(forKey: token) } }
    }

    /// Calls `handler` with each new preview angle, synchronously and in order.
    public func observePreviewAngle(_ handler: @escaping @Sendable (Double) -> Void) -> RotationObservation {
        let token = state.withLock { s in
            s.nextToken += 1
            s.previewCallbacks[s.nextToken] = handler
            return s.nextToken
        }
        return RotationObservation { [weak self] in self?.state.withLock { _ = $0.previewCallbacks.removeValue(forKey: token) } }
    }

    /// Stops listening to gravity, ends the streams and drops the callbacks. No angle is
    /// delivered after this returns.
    public func invalidate() {
        subscription?.cancel()
        let streams = state.withLock { s in
            s.invalidated = true
            s.captureCallbacks = [:]
            s.previewCallbacks = [:]
            defer {
                s.captureStreams = [:]
                s.previewStreams = [:]
            }
            return Array(s.captureStreams.values) + Array(s.previewStreams.values)
        }
        for continuation in streams { continuation.finish() }
    }

    deinit { subscription?.cancel() }

    /// Takes a gravity reading: updates the device rotation and, when an angle changes, tells
    /// the observers — inside the lock, so deliveries never reorder.
    func update(with gravity: GravityVector) {
        state.withLock { s in
            guard !s.invalidated, let rotation = s.estimator.update(gravity) else { return }
            publish(&s, capture: Self.captureAngle(deviceRotation: rotation, mounting: mounting))
        }
    }

    private func publish(_ s: inout State, capture: Int) {
        let preview = Self.normalize(capture - s.displayRotation)
        if capture != s.capture {
            s.capture = capture
            for callback in s.captureCallbacks.sorted(by: { $0.key < $1.key }) { callback.value(Double(capture)) }
            for continuation in s.captureStreams.values { continuation.yield(Double(capture)) }
        }
        if preview != s.preview {
            s.preview = preview
            for callback in s.previewCallbacks.sorted(by: { $0.key < $1.key }) { callback.value(Double(preview)) }
            for continuation in s.previewStreams.values { continuation.yield(Double(preview)) }
        }
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

/// A registration for angle callbacks; ``cancel()`` ends it.
public final class RotationObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = Mutex(onCancel) }

    /// Stops the callbacks. Safe to call more than once.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}

/// A weak reference that can cross threads.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    // @unchecked: set once right after creation, before any reading thread can see it.
    weak var value: T?
}
