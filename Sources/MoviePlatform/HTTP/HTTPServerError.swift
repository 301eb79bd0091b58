/// Why an ``HTTPServer`` could not start: a message naming the address and the step.
package struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    package let message: String
    /// A Boolean value that indicates whether libmicrohttpd could not be opened (rather than the
    /// address refused).
    package let isLibraryMissing: Bool
    package init(_ message: String, isLibraryMissing: Bool = false) {
        self.message = message
        self.isLibraryMissing = isLibraryMissing
    }
    package var description: String { message }
}
