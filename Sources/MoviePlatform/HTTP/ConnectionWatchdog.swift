#if canImport(Glibc)
import Glibc
#endif

/// Frees the connection slots that clients hold without making progress, which
/// libmicrohttpd's own timeout (it counts idleness only) cannot:
/// - a request head (request line and headers) not complete within ``headNanoseconds`` of the
///   connection's accept or of its previous response, however the bytes trickle;
/// - a streamed response whose reader has made room for no block within
///   ``stallNanoseconds`` (a minimum rate: a reader that takes a byte now and then holds its
///   slot no longer than one that takes none);
/// - past ``capacity`` open connections, the oldest one still sending its head, so a client
///   that sends its request whole gets in while slow senders fill every slot.
///
/// It closes a connection by shutting its socket down: the connection's thread sees the end and
/// libmicrohttpd closes it. Its thread sleeps until the earliest deadline or a change.
final class ConnectionWatchdog: @unchecked Sendable {
    // @unchecked: every stored property but the constants is guarded by `lock`.
    let headNanoseconds: UInt64
    let stallNanoseconds: UInt64
    let capacity: Int
    private let lock = ConditionLock()
    private var entries: [UInt: Entry] = [:]
    private var stopped = false
    private var cut = 0
    private var thread: DedicatedThread?

    private struct Entry {
        var socket: Int32
        var opened: UInt64
        var deadline: UInt64
        var sendingHead: Bool
    }

    init(headSeconds: UInt32, stallSeconds: UInt32, capacity: Int) {
        headNanoseconds = UInt64(headSeconds) * 1_000_000_000
        stallNanoseconds = UInt64(stallSeconds) * 1_000_000_000
        self.capacity = capacity
        thread = DedicatedThread(name: "http-watchdog") { [self] in run() }
    }

    /// How many connections it has closed.
    var closedCount: Int { lock.withLock { cut } }

    /// A connection was accepted on `socket`: its head is due.
    func opened(_ connection: UInt, socket: Int32) {
        lock.withLock {
            let now = SystemClock.monotonicNanoseconds()
            entries[connection] = Entry(socket: socket, opened: now, deadline: now &+ headNanoseconds, sendingHead: true)
            if entries.count > capacity { evictOldestSendingHead() }
            lock.broadcast()
        }
    }

    /// The connection's request head is complete: it is being answered.
    func headReceived(_ connection: UInt) { update(connection, deadline: .max, sendingHead: false) }

    /// The connection's response is complete: the next request's head is due.
    func responseCompleted(_ connection: UInt) {
        update(connection, deadline: SystemClock.monotonicNanoseconds() &+ headNanoseconds, sendingHead: true)
    }

    /// A streamed response's producer is at work (waiting for media is not the reader's fault).
    func producing(_ connection: UInt) { update(connection, deadline: .max, sendingHead: false) }

    /// A streamed response's reader made room for a block: the next is due within the stall limit.
    func streamProgressed(_ connection: UInt) {
        update(connection, deadline: SystemClock.monotonicNanoseconds() &+ stallNanoseconds, sendingHead: false)
    }

    /// The connection is closed (its socket not yet): forget it.
    func closed(_ connection: UInt) {
        lock.withLock { _ = entries.removeValue(forKey: connection) }
    }

    /// Stops the watchdog's thread and waits for it.
    func stop() {
        let running = lock.withLock {
            stopped = true
            lock.broadcast()
            defer { thread = nil }
            return thread
        }
        running?.join()
    }

    private func update(_ connection: UInt, deadline: UInt64, sendingHead: Bool) {
        lock.withLock {
            guard entries[connection] != nil else { return }
            entries[connection]?.deadline = deadline
            entries[connection]?.sendingHead = sendingHead
            if deadline != .max { lock.broadcast() }
        }
    }

    /// Closes, under `lock`, the connection that has been sending its head the longest.
    private func evictOldestSendingHead() {
        let oldest = entries.filter { $0.value.sendingHead }.min { $0.value.opened < $1.value.opened }
        guard let oldest else { return }
        close(oldest.key)
    }

    /// Shuts the connection's socket down, under `lock` (libmicrohttpd closes the socket only
    /// after telling ``closed(_:)``, so the descriptor is still the connection's).
    private func close(_ connection: UInt) {
        guard let entry = entries.removeValue(forKey: connection) else { return }
        _ = shutdown(entry.socket, Int32(SHUT_RDWR))
        cut += 1
    }

    private func run() {
        lock.withLock {
            while !stopped {
                let now = SystemClock.monotonicNanoseconds()
                for (connection, entry) in entries where entry.deadline <= now { close(connection) }
                let next = entries.values.map(\.deadline).min() ?? .max
                if next == .max { lock.wait() } else { _ = lock.wait(until: next) }
            }
        }
    }
}
