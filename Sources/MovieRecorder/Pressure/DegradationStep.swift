/// A step a session took to keep a recording whole under pressure, or undid when the pressure
/// fell (``CaptureSession/degradationSteps()``).
///
/// The extras give way first: the live view's frame rate is halved, then its pictures stop.
/// Then the recording keeps every second frame, then every third, evenly, with true
/// timestamps. From ``SystemPressureState/Level/critical`` for heat the recording is finished. Steps are
/// undone in the reverse order once the recording keeps up with room to spare.
public struct DegradationStep: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    public enum Change: Sendable, Hashable {
        /// The live view encodes one picture in `divisor` (1: every picture again).
        case liveViewFrameRate(divisor: Int)
        /// The live view stopped encoding pictures (`true`) or started again (`false`).
        case liveViewPaused(Bool)
        /// The recording keeps one frame in `divisor`, evenly spaced (1: every frame again).
        case recordingFrameRate(divisor: Int)
        /// The recording was finished before the system stops it (a critical thermal level).
        case recordingFinished
    }

    /// What changed.
    public var change: Change
    /// Why: ``SystemPressureState/Factors/recordingLag`` when the recording fell behind,
    /// ``SystemPressureState/Factors/systemTemperature`` or ``SystemPressureState/Factors/peakPower``
    /// for heat and power; empty when a step is undone.
    public var reason: SystemPressureState.Factors
    /// The pressure when the step was taken.
    public var pressure: SystemPressureState

    /// A step of `change` for `reason` at `pressure`.
    public init(change: Change, reason: SystemPressureState.Factors, pressure: SystemPressureState) {
        self.change = change
        self.reason = reason
        self.pressure = pressure
    }

    /// A Boolean value that indicates whether the step gives back what an earlier one took.
    public var isRelief: Bool {
        switch change {
        case .liveViewFrameRate(let divisor), .recordingFrameRate(let divisor): divisor == 1
        case .liveViewPaused(let paused): !paused
        case .recordingFinished: false
        }
    }

    /// What changed and why: `recording frame rate 1/2 (recordingLag) at serious (recordingLag)`.
    public var description: String {
        let what = switch change {
        case .liveViewFrameRate(let divisor): divisor == 1 ? "live view frame rate full" : "live view frame rate 1/\(divisor)"
        case .liveViewPaused(let paused): paused ? "live view paused" : "live view resumed"
        case .recordingFrameRate(let divisor): divisor == 1 ? "recording frame rate full" : "recording frame rate 1/\(divisor)"
        case .recordingFinished: "recording finished"
        }
        return reason.isEmpty ? "\(what) at \(pressure)" : "\(what) (\(reason)) at \(pressure)"
    }
}
