/// A request the ``HTTPServer`` hands its handler: the method, the path without its query, and
/// the query arguments and headers the server was asked to look up.
package struct HTTPRequest: Sendable {
    package var method: String
    package var path: String
    /// The values of the query arguments named in ``HTTPServer/Limits/queryKeys`` that the
    /// request has.
    package var query: [String: String]
    /// The values of the headers named in ``HTTPServer/Limits/headerKeys`` that the request has,
    /// under those names.
    package var headers: [String: String]
    /// The client's address as text, such as `127.0.0.1`; empty when unknown.
    package var clientAddress: String

    package init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                 clientAddress: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.clientAddress = clientAddress
    }
}
