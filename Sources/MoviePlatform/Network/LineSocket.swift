#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection that sends text and reads it back line by line, for line-oriented
/// protocols such as gpsd's. Every wait is a `poll` on the socket and a ``WakePipe``, so the
/// thread that owns it can be woken to stop; lines are bounded in length.
package final class LineSocket {
    /// What waiting for a line gave.
    package enum ReadResult: Equatable {
        case line(String)
        /// Nothing within the timeout.
        case timedOut
        /// The wake pipe was signalled.
        case woken
        /// The peer closed the connection.
        case closed
    }

    private let descriptor: Int32
    private let wake: WakePipe
    private var buffer: [UInt8] = []
    /// The longest line accepted; a longer one is an error (a hostile or broken peer).
    package let maximumLineLength: Int

    private init(descriptor: Int32, wake: WakePipe, maximumLineLength: Int) {
        self.descriptor = descriptor
        self.wake = wake
        self.maximumLineLength = maximumLineLength
    }

    deinit { close(descriptor) }

    /// Connects to `host` (a name or a numeric address) at `port`, giving up after
    /// `timeoutMilliseconds` or when `wake` is signalled.
    /// - Throws: ``NetworkError`` naming the address and the reason.
    package static func connect(host: String, port: UInt16, timeoutMilliseconds: Int32, wake: WakePipe,
                                maximumLineLength: Int = 65_536) throws(NetworkError) -> LineSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw NetworkError("resolving \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = NetworkError("connecting to \(host):\(port): no address")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            do {
                let fd = try open(info.pointee, host: host, port: port, timeoutMilliseconds: timeoutMilliseconds, wake: wake)
                return LineSocket(descriptor: fd, wake: wake, maximumLineLength: maximumLineLength)
            } catch {
                lastError = error
            }
            entry = info.pointee.ai_next
        }
        throw lastError
    }

    /// A non-blocking socket connected to one address.
    private static func open(_ info: addrinfo, host: String, port: UInt16, timeoutMilliseconds: Int32,
                             wake: WakePipe) throws(NetworkError) -> Int32 {
        let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        guard fd >= 0 else { throw NetworkError("creating a socket for \(host):\(port)", errno: errno) }
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            let code = errno
            guard code == EINPROGRESS else {
                close(fd)
                throw NetworkError("connecting to \(host):\(port)", errno: code)
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeoutMilliseconds)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard ready > 0, fds[0].revents != 0, error == 0 else {
                close(fd)
                if ready == 0 { throw NetworkError("connecting to \(host):\(port): no answer within \(timeoutMilliseconds) ms") }
                if fds[1].revents != 0 { throw NetworkError("connecting to \(host):\(port): stopped") }
                throw NetworkError("connecting to \(host):\(port)", errno: error == 0 ? ECONNREFUSED : error)
            }
        }
        return fd
    }

    /// Sends `text` whole.
    /// - Throws: ``NetworkError`` when the connection fails.
    package func send(_ text: String) throws(NetworkError) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                bytes = bytes.dropFirst(sent)
            } else if errno == EAGAIN {
                var fds = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
                guard poll(&fds, 1, 2000) > 0 else { throw NetworkError("sending: the peer took nothing for 2 s") }
            } else if errno != EINTR {
                throw NetworkError("sending", errno: errno)
            }
        }
    }

    /// The next line (without its end), waiting at most `timeoutMilliseconds` for more bytes.
    /// - Throws: ``NetworkError`` for a failed read or a line longer than ``maximumLineLength``.
    package func readLine(timeoutMilliseconds: Int32) throws(NetworkError) -> ReadResult {
        while true {
            if let end = buffer.firstIndex(of: 10) {
                var line = buffer[..<end]
                if line.last == 13 { line = line.dropLast() }
                let text = String(decoding: line, as: UTF8.self)
                buffer.removeSubrange(...end)
                return .line(text)
            }
            guard buffer.count <= maximumLineLength else {
                throw NetworkError("reading: a line longer than \(maximumLineLength) bytes")
            }
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw NetworkError("waiting for data", errno: errno)
            }
            if ready == 0 { return .timedOut }
            if fds[1].revents != 0 { return .woken }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return .closed }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw NetworkError("reading", errno: errno)
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}
