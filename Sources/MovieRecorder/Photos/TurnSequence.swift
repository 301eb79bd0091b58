/// Numbered turns taken strictly in order: a photo waits for its turn to return or to be
/// reported, so results arrive in request order whichever encoding finishes first.
struct TurnSequence {
    /// The number whose turn it is.
    private(set) var next: UInt64 = 0
    private var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]

    /// Registers `continuation` for turn `number`; returns it back when the turn has come, for
    /// the caller to resume after its lock.
    mutating func wait(for number: UInt64, _ continuation: CheckedContinuation<Void, Never>) -> CheckedContinuation<Void, Never>? {
        guard number != next else { return continuation }
        waiting[number] = continuation
        return nil
    }

    /// Ends turn `number`, which must be the current one; returns the next turn's waiter, if it
    /// is waiting, to resume after the caller's lock.
    mutating func pass(_ number: UInt64) -> CheckedContinuation<Void, Never>? {
        precondition(number == next, "turn \(number) passed while \(next) holds it")
        next += 1
        return waiting.removeValue(forKey: next)
    }
}
