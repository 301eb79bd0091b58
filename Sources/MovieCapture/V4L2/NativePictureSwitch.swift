import Synchronization

/// Whether a V4L2 camera lends its packed YUYV or UYVY buffers to frames as they are, with I420
/// planes made only when read, rather than converting every picture at capture. A recording
/// whose hardware encoder takes the camera's layout asks for it while it runs; off when nobody
/// has asked, so a camera's buffers are otherwise held no longer than one conversion.
package final class NativePictureSwitch: Sendable {
    private let requests = Atomic<Int>(0)

    package init() {}

    /// Asks for the camera's own pictures; balance with ``release()``.
    package func request() { requests.add(1, ordering: .relaxed) }

    /// Withdraws one ``request()``.
    package func release() { requests.subtract(1, ordering: .relaxed) }

    /// Whether anyone asks for the camera's own pictures now.
    package var isOn: Bool { requests.load(ordering: .relaxed) > 0 }
}
