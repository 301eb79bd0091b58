#if canImport(Glibc)
import Glibc
#endif
import CCurl
import Synchronization

/// One HTTP request through libcurl, blocking the calling thread (an upload worker's own)
/// until it completes, fails, stalls or is cancelled.
package struct HTTPTransfer: Sendable {
    /// Where the request's body comes from.
    package enum Body: Sendable {
        case none
        case bytes([UInt8])
        /// `length` bytes of an open file from `offset`, read as they are sent.
        case file(descriptor: Int32, offset: Int64, length: Int64)
    }

    /// How a request is signed with AWS Signature Version 4.
    package struct Signature: Sendable {
        package var region: String
        package var service: String
        package var accessKeyID: String
        package var secretAccessKey: String
        package init(region: String, service: String, accessKeyID: String, secretAccessKey: String) {
            self.region = region
            self.service = service
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
        }
    }

    /// What came back: the status and the answer, or why no answer came.
    package struct Response: Sendable {
        /// The HTTP status; 0 when the exchange failed before one arrived.
        package var status: Int
        /// Why the exchange failed (libcurl's words); nil when it completed.
        package var failure: String?
        /// A Boolean value that indicates whether it failed because it was cancelled.
        package var wasCancelled: Bool
        package var body: String
        /// Header names in lower case, with their values.
        package var headers: [String: String]
        package var bytesSent: Int64
    }

    package var method: String
    package var url: String
    package var headers: [String]
    package var body: Body
    package var signature: Signature?
    package var certificateAuthorities: String?
    package var connectTimeoutSeconds = 10
    /// Seconds without a byte moving after which the request fails.
    package var stallSeconds = 30
    /// Bytes per second the body may be sent at; nil for no cap.
    package var maximumSendRate: Int64?

    package init(method: String, url: String, headers: [String] = [], body: Body = .none) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Nil when libcurl can be opened, else why not.
    package static func loadLibrary() -> String? {
        CCurl_load().map { String(cString: $0) }
    }

    /// Performs the request; `cancel` (set with ``CancelFlag/cancel()``) aborts it.
    package func perform(cancel: CancelFlag) -> Response {
        let headerLines = headers.map { strdup($0) }
        defer { headerLines.forEach { free($0) } }
        var bodyBytes: [UInt8] = []
        var request = CCurl_request()
        request.bodyDescriptor = -1
        switch body {
        case .none: break
        case .bytes(let bytes): bodyBytes = bytes; request.bodyLength = Int64(bytes.count)
        case .file(let descriptor, let offset, let length):
            request.bodyDescriptor = descriptor
            request.bodyOffset = offset
            request.bodyLength = length
        }
        request.headerCount = Int32(headerLines.count)
        request.connectTimeoutSeconds = connectTimeoutSeconds
        request.stallSeconds = stallSeconds
        request.maximumSendRate = maximumSendRate ?? 0
        let provider = signature.map { "aws:amz:\($0.region):\($0.service)" }
        let userPassword = signature.map { "\($0.accessKeyID):\($0.secretAccessKey)" }
        var raw = CCurl_response()
        headerLines.map { (line: UnsafeMutablePointer<CChar>?) -> UnsafePointer<CChar>? in line.map { UnsafePointer($0) } }.withUnsafeBufferPointer { lines in
            bodyBytes.withUnsafeBytes { bytes in
                request.headers = lines.baseAddress
                request.bodyBytes = bytes.baseAddress
                method.withCString { request.method = $0
                    url.withCString { request.url = $0
                        withOptionalCString(provider) { request.awsSignature = $0
                            withOptionalCString(userPassword) { request.userPassword = $0
                                withOptionalCString(certificateAuthorities) { request.certificateAuthorities = $0
                                    cancel.withPointer { request.cancel = UnsafePointer($0)
                                        _ = CCurl_perform(&request, &raw)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        defer { CCurl_freeResponse(&raw) }
        return Self.response(from: &raw, cancelled: cancel.isCancelled)
    }

    private static func response(from raw: inout CCurl_response, cancelled: Bool) -> Response {
        let body = raw.body.map { String(cString: $0) } ?? ""
        let headerText = raw.headers.map { String(cString: $0) } ?? ""
        var headers: [String: String] = [:]
        for line in headerText.split(whereSeparator: \.isNewline) {  // "\r\n" is one Character
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces
        }
        let failure = raw.code == 0 ? nil : withUnsafeBytes(of: &raw.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // CURLE_ABORTED_BY_CALLBACK is also a body that could not be read: only the flag says which.
        return Response(status: raw.status, failure: failure, wasCancelled: raw.code == 42 && cancelled,
                        body: body, headers: headers, bytesSent: raw.bytesSent)
    }
}

/// A flag another thread sets to abort the requests that watch it.
package final class CancelFlag: Sendable {
    private let storage = UnsafeTransfer(UnsafeMutablePointer<Int32>.allocate(capacity: 1))

    package init() { storage.value.initialize(to: 0) }
    deinit { storage.value.deallocate() }

    package func cancel() { CCurl_setFlag(storage.value, 1) }

    /// A Boolean value that indicates whether ``cancel()`` was called.
    package var isCancelled: Bool { CCurl_getFlag(storage.value) != 0 }

    fileprivate func withPointer<T>(_ body: (UnsafeMutablePointer<Int32>) -> T) -> T { body(storage.value) }
}

private func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

private extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) }
}
