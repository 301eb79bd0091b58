import MoviePlatform

/// The S3 requests the queue makes, each one blocking its worker thread: HEAD and PUT of an
/// object, and the multipart upload's create, part, list, complete and abort. Every request
/// carries SigV4 (libcurl signs it) and `x-amz-content-sha256`, every body its `Content-MD5`.
struct S3Client: Sendable {
    let destination: UploadDestination
    let credentials: UploadCredentials
    let settings: UploadSettings
    let cancel: CancelFlag

    /// A part the server holds: its number, ETag (quoted hex MD5) and size.
    struct StoredPart: Sendable, Hashable {
        var number: Int
        var etag: String
        var size: Int64
    }

    /// The object's ETag and size, or nil when there is none.
    func head(_ key: String) throws(UploadError) -> (etag: String, size: Int64)? {
        let response = try send(HTTPTransfer(method: "HEAD", url: destination.url(forKey: key)), key: key, step: "looking for the object (HEAD)", allowing: [404])
        guard response.status == 200 else { return nil }
        return (response.headers["etag"] ?? "", Int64(response.headers["content-length"] ?? "") ?? -1)
    }

    /// Stores `length` bytes of the file as the whole object; returns its ETag.
    func put(_ key: String, descriptor: Int32, offset: Int64, length: Int64, digests: Digests) throws(UploadError) -> String {
        var transfer = HTTPTransfer(method: "PUT", url: destination.url(forKey: key), body: .file(descriptor: descriptor, offset: offset, length: length))
        transfer.headers = bodyHeaders(digests) + ["Content-Type: \(Self.contentType(key))"]
        let response = try send(transfer, key: key, step: "storing the object (PUT)")
        return try checkedETag(response, digests, key: key, step: "storing the object (PUT)")
    }

    /// Begins a multipart upload; returns its upload ID.
    func createMultipartUpload(_ key: String) throws(UploadError) -> String {
        var transfer = HTTPTransfer(method: "POST", url: destination.url(forKey: key, query: "uploads="))
        transfer.headers = ["Content-Type: \(Self.contentType(key))"]
        let response = try send(transfer, key: key, step: "beginning a multipart upload")
        guard let id = S3XML.value("UploadId", in: response.body[...]), !id.isEmpty else {
            throw UploadError(.server, "\(describe(key)): beginning a multipart upload: the answer has no UploadId", status: response.status)
        }
        return id
    }

    /// Stores part `number` of the upload; returns its ETag.
    func uploadPart(_ key: String, uploadID: String, number: Int, descriptor: Int32, offset: Int64, length: Int64,
                    digests: Digests) throws(UploadError) -> String {
        let query = "partNumber=\(number)&uploadId=\(UploadDestination.encoded(uploadID))"
        var transfer = HTTPTransfer(method: "PUT", url: destination.url(forKey: key, query: query),
                                    body: .file(descriptor: descriptor, offset: offset, length: length))
        transfer.headers = bodyHeaders(digests)
        let step = "storing part \(number)"
        return try checkedETag(try send(transfer, key: key, step: step), digests, key: key, step: step)
    }

    /// The parts the server holds for the upload; nil when the upload is no longer there.
    func listParts(_ key: String, uploadID: String) throws(UploadError) -> [StoredPart]? {
        var parts: [StoredPart] = []
        var marker = 0
        while true {
            var query = "max-parts=1000"
            if marker > 0 { query += "&part-number-marker=\(marker)" }
            query += "&uploadId=\(UploadDestination.encoded(uploadID))"
            let response = try send(HTTPTransfer(method: "GET", url: destination.url(forKey: key, query: query)), key: key,
                                    step: "listing the parts stored", allowing: [404])
            if response.status == 404 { return nil }
            let body = response.body[...]
            for block in S3XML.blocks("Part", in: body) {
                guard let number = S3XML.value("PartNumber", in: block).flatMap({ Int($0) }) else { continue }
                parts.append(StoredPart(number: number, etag: S3XML.value("ETag", in: block) ?? "",
                                        size: S3XML.value("Size", in: block).flatMap { Int64($0) } ?? -1))
            }
            guard S3XML.value("IsTruncated", in: body) == "true", let next = S3XML.value("NextPartNumberMarker", in: body).flatMap({ Int($0) }),
                  next > marker else { return parts }
            marker = next
        }
    }

    /// The unfinished multipart uploads of exactly `key`, oldest first.
    func multipartUploads(of key: String) throws(UploadError) -> [String] {
        let query = "prefix=\(UploadDestination.encoded(key))&uploads="
        let response = try send(HTTPTransfer(method: "GET", url: destination.bucketURL(query: query)), key: key, step: "listing unfinished uploads")
        return S3XML.blocks("Upload", in: response.body[...]).compactMap { block in
            S3XML.value("Key", in: block) == key ? S3XML.value("UploadId", in: block) : nil
        }
    }

    /// Completes the upload from its parts' ETags, in order; returns the object's ETag.
    func completeMultipartUpload(_ key: String, uploadID: String, etags: [String]) throws(UploadError) -> String {
        let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(S3XML.escaped($0.element))</ETag></Part>" }
        let xml = Array("<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>".utf8)
        var transfer = HTTPTransfer(method: "POST", url: destination.url(forKey: key, query: "uploadId=\(UploadDestination.encoded(uploadID))"),
                                    body: .bytes(xml))
        let digests: Digests
        do { digests = try Digests(xml) } catch { throw UploadError(.libraryMissing, "\(describe(key)): \(error)") }
        transfer.headers = bodyHeaders(digests) + ["Content-Type: application/xml"]
        let step = "completing the multipart upload"
        let response = try send(transfer, key: key, step: step)
        // S3 may answer 200 and still report an error in the body.
        if let code = S3XML.value("Code", in: response.body[...]) {
            throw error(for: response, code: code, key: key, step: step)
        }
        return S3XML.value("ETag", in: response.body[...]) ?? response.headers["etag"] ?? ""
    }

    /// Removes the object (one this queue just stored with bytes other than the file's).
    func delete(_ key: String) throws(UploadError) {
        _ = try send(HTTPTransfer(method: "DELETE", url: destination.url(forKey: key)), key: key, step: "removing a damaged object", allowing: [404])
    }

    /// Abandons the upload and the parts it holds.
    func abortMultipartUpload(_ key: String, uploadID: String) throws(UploadError) {
        _ = try send(HTTPTransfer(method: "DELETE", url: destination.url(forKey: key, query: "uploadId=\(UploadDestination.encoded(uploadID))")),
                     key: key, step: "abandoning an unfinished upload", allowing: [404])
    }

    // MARK: Sending

    private func bodyHeaders(_ digests: Digests) -> [String] {
        // No "Expect:" to turn off 100-continue: libcurl 7.88 would sign the header it then leaves out.
        ["Content-MD5: \(Digests.base64(digests.md5))", "x-amz-content-sha256: \(Digests.hex(digests.sha256))"]
    }

    /// Sends the request signed, and turns anything but 2xx (or a status in `allowing`) into an error.
    private func send(_ transfer: HTTPTransfer, key: String, step: String, allowing: Set<Int> = []) throws(UploadError) -> HTTPTransfer.Response {
        var transfer = transfer
        transfer.signature = .init(region: destination.region, service: "s3", accessKeyID: credentials.accessKeyID,
                                   secretAccessKey: credentials.secretAccessKey)
        if case .none = transfer.body { transfer.headers.append("x-amz-content-sha256: \(Self.emptySHA256)") }
        if let token = credentials.sessionToken { transfer.headers.append("x-amz-security-token: \(token)") }
        transfer.certificateAuthorities = destination.certificateAuthorities
        transfer.stallSeconds = max(1, Int(settings.stallTimeout.components.seconds))
        if let rate = settings.maximumRate { transfer.maximumSendRate = max(1, rate / Int64(max(1, settings.maximumConcurrentRequests))) }
        let response = transfer.perform(cancel: cancel)
        if response.wasCancelled {
            throw UploadError(.cancelled, "\(describe(key)): \(step): stopped; the upload resumes next time")
        }
        if let failure = response.failure {
            throw UploadError(.network, "\(describe(key)): \(step): \(failure); retrying")
        }
        if (200..<300).contains(response.status) || allowing.contains(response.status) { return response }
        throw error(for: response, code: S3XML.value("Code", in: response.body[...]), key: key, step: step)
    }

    private func error(for response: HTTPTransfer.Response, code: String?, key: String, step: String) -> UploadError {
        let message = S3XML.value("Message", in: response.body[...])
        let answer = "the server answered \(response.status)" + (code.map { " \($0)" } ?? "") + (message.map { ": \($0)" } ?? "")
        switch code {
        case "NoSuchBucket":
            return UploadError(.noSuchBucket, "\(describe(key)): \(step): \(answer); create the bucket (retrying meanwhile)", status: response.status, serverCode: code)
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "AccessDenied", "TokenRefreshRequired":
            return UploadError(.invalidCredentials, "\(describe(key)): \(step): \(answer); check the access key, its secret and its permissions", status: response.status, serverCode: code)
        case "BadDigest", "InvalidDigest", "XAmzContentSHA256Mismatch":
            return UploadError(.fileChanged, "\(describe(key)): \(step): \(answer); the file changed while it was sent", status: response.status, serverCode: code)
        default:
            return UploadError(.server, "\(describe(key)): \(step): \(answer)", status: response.status, serverCode: code)
        }
    }

    /// The ETag of a stored body, checked against the MD5 sent (when the server's ETag is one:
    /// not with SSE-KMS or SSE-C, whose ETags are not the body's MD5).
    private func checkedETag(_ response: HTTPTransfer.Response, _ digests: Digests, key: String, step: String) throws(UploadError) -> String {
        let etag = response.headers["etag"] ?? ""
        let expected = "\"\(Digests.hex(digests.md5))\""
        let encryption = response.headers["x-amz-server-side-encryption"] ?? ""
        let isMD5 = !encryption.hasPrefix("aws:kms") && response.headers["x-amz-server-side-encryption-customer-algorithm"] == nil
        if isMD5 && !etag.isEmpty && etag.count == expected.count && etag.lowercased() != expected {
            throw UploadError(.fileChanged, "\(describe(key)): \(step): the server received other bytes than the file's checksum says (ETag \(etag), MD5 \(expected)): the file changed while it was sent", status: response.status)
        }
        return etag.isEmpty ? expected : etag
    }

    func describe(_ key: String) -> String { "s3://\(destination.bucket)/\(key)" }

    static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func contentType(_ key: String) -> String {
        let lower = key.lowercased()
        if lower.hasSuffix(".mov") { return "video/quicktime" }
        if lower.hasSuffix(".mp4") { return "video/mp4" }
        if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") { return "image/jpeg" }
        if lower.hasSuffix(".heic") || lower.hasSuffix(".heif") { return "image/heic" }
        return "application/octet-stream"
    }
}
