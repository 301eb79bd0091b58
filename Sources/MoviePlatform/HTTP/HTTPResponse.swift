/// What an ``HTTPServer`` handler answers: a status, headers, and a body that is either all
/// there or streamed as it is produced.
package struct HTTPResponse: Sendable {
    /// What the next call of a streamed body's producer gives.
    package enum Piece: Sendable {
        /// Bytes to send now (at least one).
        case bytes([UInt8])
        /// The body is complete.
        case end
    }

    package enum Body: Sendable {
        case bytes([UInt8])
        /// Called on the connection's own thread each time the client can take more; it may
        /// block until it has something (it is woken when the server stops) and returns at
        /// least one byte or ``Piece/end``. The response is sent chunked, through a send
        /// buffer of `sendBuffer` bytes, and the connection is closed when the client has taken
        /// nothing for `idleSeconds`.
        case stream(sendBuffer: Int, idleSeconds: UInt32, @Sendable () -> Piece)
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body

    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer, for errors: the status and one line saying what to do.
    package static func text(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
                     body: .bytes(Array((message + "\n").utf8)))
    }
}
