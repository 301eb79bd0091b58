/// Why an ``HTTPServer`` could not start: a message naming the address and the step.
package struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
