/// Which recent frame a zero-shutter-lag photo takes: the one captured closest to the moment of
/// the request, never one captured after it when an earlier one is within half a frame interval.
enum ZeroShutterLagChoice: Equatable {
    /// The frame at this index of the timestamps.
    case chosen(Int)
    /// No frame decides it yet: wait for the next one.
    case waitForNextFrame

    /// Decides from capture `timestamps` in ascending order (nanoseconds), the request's
    /// `moment` and the frame `interval` (nil until two frames are known).
    static func choose(timestamps: [UInt64], at moment: UInt64, interval: UInt64?) -> ZeroShutterLagChoice {
        let before = timestamps.lastIndex { $0 <= moment }
        let after = timestamps.firstIndex { $0 > moment }
        if let before, let interval, (moment - timestamps[before]) * 2 <= interval { return .chosen(before) }
        switch (before, after) {
        case let (before?, after?):
            let early = moment - timestamps[before], late = timestamps[after] - moment
            return .chosen(late < early ? after : before)
        case let (nil, after?):
            return .chosen(after)
        default:
            // Only earlier frames, the newest more than half an interval back (or the interval
            // unknown): the next frame may be closer.
            return .waitForNextFrame
        }
    }

    /// The typical interval between `timestamps`: the median of the last eight gaps.
    static func interval(of timestamps: [UInt64]) -> UInt64? {
        guard timestamps.count >= 2 else { return nil }
        let recent = timestamps.suffix(9)
        let gaps = zip(recent, recent.dropFirst()).map { $1 &- $0 }.sorted()
        return gaps[gaps.count / 2]
    }
}
