/// Why the upload queue could not be set up, or why an upload failed: a code to switch on and
/// a message naming the object, the step and what to do.
public struct UploadError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Code: Sendable, Hashable {
        /// The destination (`s3://bucket/prefix`, the endpoint, the region) cannot be used.
        case invalidDestination
        /// No credentials, or credentials that cannot be read; or the server refused them.
        case invalidCredentials
        /// libcurl or libcrypto could not be opened.
        case libraryMissing
        /// The server could not be reached, or the exchange broke off or stalled.
        case network
        /// The server answered with an error (``UploadError/serverCode`` has S3's code).
        case server
        /// The bucket does not exist (yet).
        case noSuchBucket
        /// The file was removed, or changed while it was being uploaded.
        case fileChanged
        /// The file could not be read.
        case fileError
        /// The queue was stopped before the upload finished; it resumes next time.
        case cancelled
    }

    /// What kind of failure it is.
    public let code: Code
    /// The whole message.
    public let message: String
    /// The HTTP status the server answered with, when it answered.
    public let status: Int?
    /// S3's error code (`SlowDown`, `NoSuchBucket`, `SignatureDoesNotMatch`, …), when it sent one.
    public let serverCode: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, status: Int? = nil, serverCode: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
    }

    /// The message.
    public var description: String { message }
}
