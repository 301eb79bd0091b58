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
/// included) are closed after ``Limits/idleSeconds``. The handler sees only what it asked for
/// by name (``Limits/queryKeys``, ``Limits/headerKeys``).
package final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is set once in init and cleared by `stop`, which runs once (guarded by
    // `stopped`); the handler box is immutable.

    /// What the server allows each client.
    package struct Limits: Sendable {
        package var connections: UInt32 = 64
        package var connectionsPerAddress: UInt32 = 16
        package var idleSeconds: UInt32 = 10
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
    private let stopped = LockedValue(false)

    /// Starts listening on `host` (an IPv4 or IPv6 address as text) and `port` (0 for any free
    /// one); `handler` is called on connection threads.
    /// - Throws: ``HTTPServerError`` when the library is missing, the address is not one, or it
    ///   cannot be bound.
    package init(host: String, port: UInt16, limits: Limits,
                 handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) {
        if let failure = SystemLibrary.microhttpd.load() { throw HTTPServerError("starting the server: \(failure)", isLibraryMissing: true) }
        let box = HandlerBox(handler: handler, limits: limits)
        let context = Unmanaged.passRetained(box)
        let started = Self.withSocketAddress(host: host, port: port) { address, ipv6 in
            CMicroHTTPD_start(address, ipv6 ? 1 : 0, limits.connections, limits.connectionsPerAddress, limits.idleSeconds,
                              limits.requestMemory, accessHandler, context.toOpaque())
        }
        guard let started, let daemon = started.daemon else {
            let reason = started == nil ? "is not an IPv4 or IPv6 address" : "cannot be listened on (\(String(cString: strerror(started!.error))))"
            context.release()
            throw HTTPServerError("starting the server: \(host) port \(port) \(reason); name a local address and a free port")
        }
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
        context.release()
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
    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, limits: HTTPServer.Limits) {
        self.handler = handler
        self.limits = limits
    }
}

/// A streamed body in progress: its producer and the bytes it gave that did not fit yet.
private final class StreamedBody {
    let produce: @Sendable () -> HTTPResponse.Piece
    var pending: [UInt8] = []
    var start = 0
    init(_ produce: @escaping @Sendable () -> HTTPResponse.Piece) { self.produce = produce }
}

/// libmicrohttpd's access handler: builds the request, asks the handler, queues its response.
private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, _ in
    guard let context, let connection, let url, let method else { return .NO }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
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
    return queue(box.handler(request), on: connection)
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream(let sendBuffer, let idleSeconds, let produce):
        _ = CMicroHTTPD_limitConnection(connection, Int32(clamping: sendBuffer), idleSeconds)
        let body = Unmanaged.passRetained(StreamedBody(produce))
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
    if body.start >= body.pending.count {
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
