import MovieContainer
internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on GNU libmicrohttpd: each connection on a thread of its own, so a handler
/// and a streamed body's producer may block (on a signalled wait) without holding up others.
///
/// libmicrohttpd parses requests and enforces the connection limits: malformed requests get its
/// 400, headers past the memory limit its 431, idle connections (a client that stopped reading
/// included) are closed after ``Limits/idleSeconds``. A ``ConnectionWatchdog`` closes what idleness
/// does not catch: a request head that trickles past ``Limits/headSeconds``, a stream reader
/// slower than a block per ``Limits/streamStallSeconds``, and, past ``Limits/connections``, the
/// oldest connection still sending its head. Connection threads run ``Limits/niceness`` below
/// the thread that started the server, so a flood of requests cannot starve a recording. The
/// handler sees only what it asked for by name (``Limits/queryKeys``, ``Limits/headerKeys``).
package final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is set once in init and cleared by `stop`, which runs once (guarded by
    // `stopped`); the handler box is immutable.

    /// What the server allows each client.
    package struct Limits: Sendable {
        package var connections: UInt32 = 64
        package var connectionsPerAddress: UInt32 = 16
        package var idleSeconds: UInt32 = 10
        /// Seconds from a connection's accept (or its previous response) to the end of its
        /// request head.
        package var headSeconds: UInt32 = 5
        /// Seconds a stream's reader may take to make room for the next block.
        package var streamStallSeconds: UInt32 = 5
        /// How much lower the connection threads are scheduled than the thread that starts the server.
        package var niceness: Int32 = 10
        /// Bytes of memory for one connection's request: its request line and headers must fit.
        package var requestMemory = 16 * 1024
        package var queryKeys: [String] = []
        package var headerKeys: [String] = []
        package init() {}
    }

    /// The port the server listens on.
    package let port: UInt16
    private var daemon: OpaquePointer?
    private let context: Unmanaged<HandlerBox>
    private let watchdog: ConnectionWatchdog
    private let stopped = LockedValue(false)

    /// Starts listening on `host` (an IPv4 or IPv6 address as text) and `port` (0 for any free
    /// one); `handler` is called on connection threads.
    /// - Throws: ``HTTPServerError`` when the library is missing, the address is not one, or it
    ///   cannot be bound.
    package init(host: String, port: UInt16, limits: Limits,
                 handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) {
        if let failure = SystemLibrary.microhttpd.load() { throw HTTPServerError("starting the server: \(failure)", isLibraryMissing: true) }
        let watchdog = ConnectionWatchdog(headSeconds: limits.headSeconds, stallSeconds: limits.streamStallSeconds,
                                          capacity: Int(limits.connections))
        let box = HandlerBox(handler: handler, limits: limits, watchdog: watchdog)
        let context = Unmanaged.passRetained(box)
        let started = Self.start(host: host, port: port, limits: limits, context: context)
        guard let started, let daemon = started.daemon else {
            let reason = started == nil ? "is not an IPv4 or IPv6 address" : "cannot be listened on (\(String(cString: strerror(started!.error))))"
            context.release()
            watchdog.stop()
            throw HTTPServerError("starting the server: \(host) port \(port) \(reason); name a local address and a free port")
        }
        self.watchdog = watchdog
        self.daemon = daemon
        self.context = context
        self.port = CMicroHTTPD_port(daemon)
    }

    deinit { stop() }

    /// Stops listening and closes every connection, waiting for their threads; a streamed body's
    /// producer must return promptly once whatever it waits for is closed.
    package func stop() {
        guard !stopped.withLock({ was in defer { was = true }; return was }), let daemon else { return }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        watchdog.stop()
        context.release()
    }

    /// How many connections the watchdog has closed for a late head, a stalled stream or room.
    package var closedByWatchdog: Int { watchdog.closedCount }

    /// Starts the daemon from a thread of its own, lowered by ``Limits/niceness``: Linux gives a
    /// new thread its creator's nice value, so the daemon's thread and every connection thread
    /// it creates run at that level, and the caller's thread keeps its own.
    private static func start(host: String, port: UInt16, limits: Limits,
                              context: Unmanaged<HandlerBox>) -> (daemon: OpaquePointer?, error: Int32)? {
        let result = LockedValue<(daemon: UnsafeTransfer<OpaquePointer?>, error: Int32)??>(nil)
        let opaque = UInt(bitPattern: context.toOpaque())
        let starter = DedicatedThread(name: "http-start") {
            ThreadPriority.lower(by: limits.niceness)
            let started = withSocketAddress(host: host, port: port) { address, ipv6 in
                // libmicrohttpd's limit leaves room for the watchdog's: past `connections` it
                // closes the oldest connection still sending its head, rather than refuse a new one.
                CMicroHTTPD_start(address, ipv6 ? 1 : 0, limits.connections + 16, limits.connectionsPerAddress, limits.idleSeconds,
                                  limits.requestMemory, accessHandler, notifyConnection, requestCompleted,
                                  UnsafeMutableRawPointer(bitPattern: opaque))
            }
            result.withLock { $0 = .some(started.map { (UnsafeTransfer($0.daemon), $0.error) }) }
        }
        starter.join()
        guard let started = result.withLock({ $0 }) ?? nil else { return nil }
        return (started.daemon.value, started.error)
    }

    private static func withSocketAddress<T>(host: String, port: UInt16,
                                             _ body: (UnsafePointer<sockaddr>, Bool) -> T) -> (daemon: T, error: Int32)? {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            errno = 0
            let result = withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, false) } }
            return (result, errno)
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            errno = 0
            let result = withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, true) } }
            return (result, errno)
        }
        return nil
    }
}

/// The handler and limits, kept alive for the daemon's callbacks.
private final class HandlerBox: Sendable {
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let limits: HTTPServer.Limits
    let watchdog: ConnectionWatchdog
    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, limits: HTTPServer.Limits, watchdog: ConnectionWatchdog) {
        self.handler = handler
        self.limits = limits
        self.watchdog = watchdog
    }
}

/// libmicrohttpd tells of each connection as it opens and closes: the watchdog follows them.
private let notifyConnection: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let context, let connection else { return }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    let key = UInt(bitPattern: UnsafeRawPointer(connection))
    if code == .CONNECTION_NOTIFY_STARTED {
        box.watchdog.opened(key, socket: CMicroHTTPD_socket(connection))
    } else {
        box.watchdog.closed(key)
    }
}

/// A response was sent (or the request ended): the next request's head is due.
private let requestCompleted: MHD_RequestCompletedCallback = { context, connection, _, _ in
    guard let context, let connection else { return }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    box.watchdog.responseCompleted(UInt(bitPattern: UnsafeRawPointer(connection)))
}

/// A streamed body in progress: its producer, the bytes it gave that did not fit yet, and the
/// watchdog that sees its reader's progress.
private final class StreamedBody {
    let produce: @Sendable () -> HTTPResponse.Piece
    let watchdog: ConnectionWatchdog
    let connection: UInt
    var pending: [UInt8] = []
    var start = 0
    init(_ produce: @escaping @Sendable () -> HTTPResponse.Piece, watchdog: ConnectionWatchdog, connection: UInt) {
        self.produce = produce
        self.watchdog = watchdog
        self.connection = connection
    }
}

/// libmicrohttpd's access handler: builds the request, asks the handler, queues its response.
private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, _ in
    guard let context, let connection, let url, let method else { return .NO }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    box.watchdog.headReceived(UInt(bitPattern: UnsafeRawPointer(connection)))
    // A body is never read: the handler answers at once, and libmicrohttpd discards the rest.
    if let uploadSize { uploadSize.pointee = 0 }
    var request = HTTPRequest(method: String(cString: method), path: String(cString: url))
    for key in box.limits.queryKeys {
        if let value = MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, key) { request.query[key] = String(cString: value) }
    }
    for key in box.limits.headerKeys {
        if let value = MHD_lookup_connection_value(connection, .HEADER_KIND, key) { request.headers[key] = String(cString: value) }
    }
    var address = [CChar](repeating: 0, count: 64)
    if CMicroHTTPD_clientAddress(connection, &address, address.count) == 0 {
        request.clientAddress = String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return queue(box.handler(request), on: connection, watchdog: box.watchdog)
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer, watchdog: ConnectionWatchdog) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream(let sendBuffer, let idleSeconds, let produce):
        _ = CMicroHTTPD_limitConnection(connection, Int32(clamping: sendBuffer), idleSeconds)
        let key = UInt(bitPattern: UnsafeRawPointer(connection))
        watchdog.streamProgressed(key)
        let body = Unmanaged.passRetained(StreamedBody(produce, watchdog: watchdog, connection: key))
        made = MHD_create_response_from_callback(CMicroHTTPD_sizeUnknown(), 32 * 1024, readStream, body.toOpaque(), freeStream)
        if made == nil { body.release() }
    }
    guard let made else { return .NO }
    for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
    let result = MHD_queue_response(connection, UInt32(response.status), made)
    MHD_destroy_response(made)
    return result
}

/// libmicrohttpd asks a streamed body for up to `max` bytes at `buffer`.
private let readStream: MHD_ContentReaderCallback = { context, _, buffer, max in
    guard let context, let buffer, max > 0 else { return CMicroHTTPD_endWithError() }
    let body = Unmanaged<StreamedBody>.fromOpaque(context).takeUnretainedValue()
    body.watchdog.streamProgressed(body.connection)
    if body.start >= body.pending.count {
        body.watchdog.producing(body.connection)
        defer { body.watchdog.streamProgressed(body.connection) }
        switch body.produce() {
        case .end: return CMicroHTTPD_endOfStream()
        case .bytes(let bytes):
            body.pending = bytes
            body.start = 0
        }
    }
    let count = min(max, body.pending.count - body.start)
    body.pending.withUnsafeBytes { source in
        UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + body.start, byteCount: count)
    }
    body.start += count
    return count
}

private let freeStream: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<StreamedBody>.fromOpaque(context).release()
}
