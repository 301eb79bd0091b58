import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Positions from gpsd, the GPS daemon of Linux (Debian `gpsd`), through its JSON protocol on
/// TCP (gpsd_json(5)): `?WATCH={"enable":true,"json":true}`, then a `TPV` report per fix.
///
/// The JSON protocol rather than libgps: it is gpsd's documented interface across versions,
/// while libgps's `gps_data_t` changes layout with each library version (libgps28 in Debian
/// 12), which a library opened at run time cannot follow safely.
///
/// A thread of its own connects, reads and reconnects (every second while gpsd is away); the
/// recording never waits for it. A daemon that cannot be reached, closes the connection, says
/// nothing for three seconds or has no fix is reported once as ``LocationEvent/unavailable(reason:)``
/// and shown in ``state``.
public final class GPSDLocationSource: LocationSource, @unchecked Sendable {
    // @unchecked: `thread`, `stopping` and `current` are guarded by `lock`, which is never held
    // while the handler runs or while the thread blocks.
    /// Where the source is.
    public enum State: Hashable, Sendable {
        /// Not started, or stopped.
        case stopped
        /// Connecting to gpsd.
        case connecting
        /// Connected; the last report had a fix.
        case fix
        /// No position, and why: gpsd cannot be reached, or has no fix.
        case unavailable(reason: String)
    }

    /// The daemon's host: a name or a numeric address.
    public let host: String
    /// The daemon's TCP port; gpsd listens on 2947.
    public let port: UInt16
    private let lock = ConditionLock()
    private var thread: DedicatedThread?
    private var wake: WakePipe?
    private var stopping = false
    private var current = State.stopped

    /// Creates a source for gpsd at `host`:`port`; nothing connects until ``start(handler:)``.
    public init(host: String = "127.0.0.1", port: UInt16 = 2947) {
        self.host = host
        self.port = port
    }

    /// Where the source is now.
    public var state: State { lock.withLock { current } }

    /// Connects to gpsd on a thread of the source's and reports its fixes to `handler`.
    public func start(handler: @escaping @Sendable (LocationEvent) -> Void) {
        stop()
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            lock.withLock { current = .unavailable(reason: "gpsd at \(host):\(port): \(error)") }
            handler(.unavailable(reason: "gpsd at \(host):\(port): \(error)"))
            return
        }
        lock.withLock {
            stopping = false
            self.wake = wake
            current = .connecting
            thread = DedicatedThread(name: "movrec-gpsd") { [self] in run(wake: wake, handler: handler) }
        }
    }

    /// Disconnects; once it returns the handler is not called again.
    public func stop() {
        let (thread, wake) = lock.withLock { () -> (DedicatedThread?, WakePipe?) in
            stopping = true
            defer { self.thread = nil }
            return (self.thread, self.wake)
        }
        wake?.wake()
        thread?.join()
        lock.withLock { current = .stopped }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    /// The thread's loop: connect, read reports until the connection ends, wait a second, again.
    private func run(wake: WakePipe, handler: @escaping @Sendable (LocationEvent) -> Void) {
        var session = Session(source: self, handler: handler)
        while !isStopping {
            do {
                let socket = try LineSocket.connect(host: host, port: port, timeoutMilliseconds: 2000, wake: wake)
                try socket.send(#"?WATCH={"enable":true,"json":true};"# + "\n")
                try session.read(socket)
            } catch {
                session.unavailable("gpsd at \(host):\(port): \(error); is gpsd running there?")
            }
            guard !isStopping else { break }
            var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 1000)  // a second before reconnecting, cut short by stop()
        }
    }

    fileprivate func setState(_ state: State) { lock.withLock { current = state } }

    /// One connection's reading, and what was last reported, so a loss is reported once.
    private struct Session {
        let source: GPSDLocationSource
        let handler: @Sendable (LocationEvent) -> Void
        var lastReason: String?

        /// Reads reports until the connection ends or the source stops.
        mutating func read(_ socket: LineSocket) throws(NetworkError) {
            while true {
                switch try socket.readLine(timeoutMilliseconds: 3000) {
                case .line(let line):
                    guard let message = GPSDMessage(line: line), message.kind == "TPV" else { continue }
                    if let fix = message.fix(capturedAt: MonotonicClock.now()) {
                        lastReason = nil
                        source.setState(.fix)
                        handler(.fix(fix))
                    } else {
                        unavailable("gpsd at \(source.host):\(source.port) has no fix")
                    }
                case .timedOut:
                    unavailable("gpsd at \(source.host):\(source.port) sent no report for 3 s")
                case .woken:
                    return
                case .closed:
                    throw NetworkError("the daemon closed the connection")
                }
            }
        }

        /// Reports the loss of the position, unless it was reported already for this reason.
        mutating func unavailable(_ reason: String) {
            guard lastReason != reason else { return }
            let first = lastReason == nil
            lastReason = reason
            source.setState(.unavailable(reason: reason))
            if first { handler(.unavailable(reason: reason)) }
        }
    }
}
