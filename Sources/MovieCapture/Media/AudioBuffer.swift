import MovieContainer
import MoviePlatform
/// Interleaved PCM frames and the moment the first of them was captured.
public struct AudioBuffer: Sendable {
    /// The samples, interleaved, in the source's `PCMFormat`.
    public var bytes: [UInt8]
    /// The number of PCM frames (one sample per channel each).
    public var frameCount: Int
    /// Capture time of the first frame on ``MonotonicClock`` in nanoseconds.
    public var timestamp: UInt64

    /// Creates a buffer.
    /// - Parameters:
    ///   - bytes: The interleaved samples.
    ///   - frameCount: The number of PCM frames in `bytes`.
    ///   - timestamp: The capture time of the first frame on ``MonotonicClock``, in nanoseconds.
    public init(bytes: [UInt8], frameCount: Int, timestamp: UInt64) {
        self.bytes = bytes
        self.frameCount = frameCount
        self.timestamp = timestamp
    }
}
