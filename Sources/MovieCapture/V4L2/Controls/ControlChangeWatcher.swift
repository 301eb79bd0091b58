import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// Watches a camera's controls on a descriptor of its own (`VIDIOC_SUBSCRIBE_EVENT` for every
/// control, `V4L2_EVENT_CTRL`) on a dedicated thread, which waits in `poll` for the driver's
/// event and hands each change to a stream.
final class ControlChangeWatcher: Sendable {
    private let thread: SourceThread

    init(path: String) { thread = SourceThread(sourceName: path, threadName: "movrec-controls") }

    /// Opens the device, subscribes and starts the thread; changes go to `yield`.
    func start(path: String, yield: @escaping @Sendable (CameraControlChange) -> Void) throws {
        let device = try V4L2Device(path: path)
        let controls = device.queryControls()
        for control in controls where control.isSupported {
            let e = CV4L2_subscribeControl(device.fd, control.id)
            guard e == 0 else {
                device.close()
                throw DeviceError.v4l2(e, device: path, step: "subscribing to \(control.key)'s changes (VIDIOC_SUBSCRIBE_EVENT)")
            }
        }
        let keys = Dictionary(controls.map { ($0.id, $0.key) }, uniquingKeysWith: { first, _ in first })
        do {
            try thread.start { run in
                defer { device.close() }
                while !run.isStopRequested {
                    var pfd = pollfd(fd: device.fd, events: Int16(POLLPRI), revents: 0)
                    guard poll(&pfd, 1, 100) > 0, pfd.revents & Int16(POLLPRI) != 0 else { continue }
                    var id: UInt32 = 0, value: Int64 = 0, changes: UInt32 = 0
                    while CV4L2_dequeueControlEvent(device.fd, &id, &value, &changes) == 0 {
                        guard id != 0 else { continue }
                        let valueChanged = changes & UInt32(V4L2_EVENT_CTRL_CH_VALUE) != 0
                        yield(CameraControlChange(id: CameraControlID(rawValue: id), key: keys[id] ?? "0x" + String(id, radix: 16),
                                                  value: valueChanged ? value : nil,
                                                  flagsChanged: changes & UInt32(V4L2_EVENT_CTRL_CH_FLAGS) != 0,
                                                  rangeChanged: changes & UInt32(V4L2_EVENT_CTRL_CH_RANGE) != 0))
                    }
                }
            }
        } catch {
            device.close()
            throw error
        }
    }

    func stop() { thread.stop() }
}

extension V4L2Camera {
    /// Changes to the camera's controls as they happen — made by this program, another process
    /// (`v4l2-ctl -c`) or the driver (an automatic exposure's time) — watched on a thread of its
    /// own until the stream's reader stops iterating. The stream keeps the newest 64 changes.
    /// - Throws: ``DeviceError`` when the device cannot be opened or refuses the subscription.
    public func controlChanges() throws -> AsyncStream<CameraControlChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: CameraControlChange.self, bufferingPolicy: .bufferingNewest(64))
        let watcher = ControlChangeWatcher(path: device.path)
        try watcher.start(path: device.path) { continuation.yield($0) }
        continuation.onTermination = { _ in watcher.stop() }
        return stream
    }
}
