/// A frame rate as a ratio, such as 30/1 or 30000/1001.
public struct FrameRate: Hashable, Sendable, CustomStringConvertible {
    /// The number of frames in ``seconds``: the ratio's numerator.
    public var frames: UInt32
    /// The number of seconds that ``frames`` frames last: the ratio's denominator.
    public var seconds: UInt32

    /// Creates a rate of `frames` per `seconds`.
    public init(frames: UInt32, seconds: UInt32 = 1) {
        self.frames = frames
        self.seconds = seconds
    }

    /// A video time scale in which every frame lasts a whole number of ticks: 600 (Apple's)
    /// where it divides evenly, otherwise the rate's own numerator.
    public var timescale: UInt32 {
        (600 * UInt64(seconds)) % UInt64(frames) == 0 ? 600 : frames
    }

    /// One frame's duration in ``timescale`` ticks.
    public var frameDuration: UInt32 { UInt32(UInt64(timescale) * UInt64(seconds) / UInt64(frames)) }

    /// A textual representation of the rate, such as `30 fps` or `30000/1001 fps`.
    public var description: String { seconds == 1 ? "\(frames) fps" : "\(frames)/\(seconds) fps" }
}
