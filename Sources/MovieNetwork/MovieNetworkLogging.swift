import MovieCapture

/// Where the network module's warnings go: the library's log (``MovieRecorderLogging``).
enum MovieNetworkLogging {
    static func warning(_ message: String) {
        MovieRecorderLogging.log(.warning, "upload", message)
    }
}
