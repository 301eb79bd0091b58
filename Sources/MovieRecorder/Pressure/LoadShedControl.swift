import Synchronization

/// How far a live view gives way to a recording under pressure: step 0 encodes every picture,
/// 1 one in two, 2 none. The capture thread asks it about each picture; the session's
/// ``PressureCoordinator`` sets the step.
final class LoadShedControl: Sendable {
    /// The deepest step: no pictures.
    static let deepest = 2
    private let stepValue = Atomic<Int>(0)
    private let counter = Atomic<Int>(0)

    /// The step in force.
    var step: Int { stepValue.load(ordering: .relaxed) }

    func setStep(_ step: Int) { stepValue.store(min(max(step, 0), Self.deepest), ordering: .relaxed) }

    /// Whether the next picture is encoded: all at step 0, every second one at step 1.
    func takesPicture() -> Bool {
        switch step {
        case 0: return true
        case 1: return counter.wrappingAdd(1, ordering: .relaxed).oldValue % 2 == 0
        default: return false
        }
    }
}
