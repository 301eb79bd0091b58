import MoviePlatform

/// Who may connect: at most ``clients`` at once, ``clientsPerAddress`` from one address, and
/// new connections from an address at ``connectionsPerSecond`` (in bursts of ``burst``), so a
/// client that hammers the port is turned away while one that reconnects now and then is back
/// in within a second.
final class RTSPAdmission: Sendable {
    static let clients = 64
    static let clientsPerAddress = 16
    static let connectionsPerSecond = 5.0
    static let burst = 20.0

    private struct State {
        var connected: [String: Int] = [:]
        var total = 0
        var rates = RequestRates(perSecond: RTSPAdmission.connectionsPerSecond, burst: RTSPAdmission.burst)
        var refused = 0
    }

    private let state = LockedValue(State())

    /// Called when a client connects: whether it may stay.
    func admit(_ address: String) -> Bool {
        state.withLock { s in
            let admitted = s.total < Self.clients && s.connected[address, default: 0] < Self.clientsPerAddress
                && s.rates.admit(address, at: SystemClock.monotonicNanoseconds())
            if admitted {
                s.total += 1
                s.connected[address, default: 0] += 1
            } else {
                s.refused += 1
            }
            return admitted
        }
    }

    /// Called when a client let in has gone.
    func closed(_ address: String) {
        state.withLock { s in
            s.total -= 1
            s.connected[address, default: 1] -= 1
            if s.connected[address] == 0 { s.connected[address] = nil }
        }
    }

    /// Clients connected now.
    var connectedCount: Int { state.withLock { $0.total } }
    /// Connections turned away.
    var refusedCount: Int { state.withLock { $0.refused } }
}
