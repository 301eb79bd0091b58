import MoviePlatform

/// One file's way into its object, resumable at every step: what was stored before (its
/// record, the server's parts) is checked and kept, never sent again.
///
/// A file up to ``UploadSettings/singleRequestLimit`` goes in one PUT. A larger one in a
/// multipart upload whose ID is stored before its first part; after a kill the parts the
/// server lists with the right MD5 are kept, and an upload begun but never recorded (killed
/// between the two) is adopted from the bucket's list. A record that says "begun" is checked
/// against the object first: one that is already complete is not sent again. A record is only
/// believed for the file as it was (its size and modification time).
struct FileUpload {
    let path: String
    let key: String
    let client: S3Client
    let store: UploadStateStore
    /// Called after each part or object stored, with its bytes.
    let progress: (Int64) -> Void

    /// What the upload did.
    struct Outcome: Sendable {
        var etag: String
        var bytes: Int64
        /// Parts (or whole objects) sent now, and parts the server already held.
        var sent = 0
        var kept = 0
        var alreadyStored = false
    }

    /// S3 takes at most this many parts in one upload.
    static let maximumPartCount: Int64 = 10_000

    func run() throws(UploadError) -> Outcome {
        let file: RandomAccessFile
        do { file = try RandomAccessFile(path: path, mode: .read) } catch {
            throw UploadError(.fileChanged, "\(path): opening the file to upload: \(error); it was removed or cannot be read")
        }
        defer { try? file.close() }
        guard let before = file.sizeAndModification else {
            throw UploadError(.fileError, "\(path): reading the file's size (fstat) failed")
        }
        let record = store.record(for: path).flatMap {
            $0.matches(destination: client.destination.identity, key: key, size: before.size, modified: before.modified) ? $0 : nil
        }
        if case .done(let etag) = record?.stage { return Outcome(etag: etag, bytes: Int64(before.size), alreadyStored: true) }
        let size = Int64(before.size)
        let parts = Self.plan(size, settings: client.settings)
        let digests = try parts.map { part throws(UploadError) in try digest(file, part) }
        let note = { (stage: UploadRecord.Stage) throws(UploadError) in
            try store.store(UploadRecord(destination: client.destination.identity, key: key, stage: stage,
                                         size: before.size, modified: before.modified), for: path)
        }
        let expected = Self.expectedETag(digests, multipart: size > client.settings.singleRequestLimit)
        if record != nil, let stored = try client.head(key), stored.size == size, stored.etag == expected {
            try note(.done(etag: stored.etag))
            return Outcome(etag: stored.etag, bytes: size, alreadyStored: true)
        }
        let outcome: Outcome
        if size <= client.settings.singleRequestLimit {
            try note(.begun(uploadID: nil))
            outcome = try single(file, size: size, digests: digests[0])
        } else {
            outcome = try multipart(file, parts: parts, digests: digests, uploadID: record.flatMap { if case .begun(let id) = $0.stage { id } else { nil } },
                                    note: note)
        }
        guard let after = file.sizeAndModification, after == before, RandomAccessFile.exists(path) else {
            throw UploadError(.fileChanged, "\(path): the file changed while it was uploaded to \(client.describe(key)); it will be sent again as it is now")
        }
        try note(.done(etag: outcome.etag))
        return outcome
    }

    private func single(_ file: RandomAccessFile, size: Int64, digests: Digests) throws(UploadError) -> Outcome {
        let etag: String
        do {
            etag = try file.descriptorForUpload(path) { fd throws(UploadError) in
                try client.put(key, descriptor: fd, offset: 0, length: size, digests: digests)
            }
        } catch where error.code == .fileChanged && (200..<300).contains(error.status ?? 0) {
            // Stored, but not the bytes digested (a server that checks no Content-MD5): remove the mix.
            try? client.delete(key)
            throw error
        }
        progress(size)
        return Outcome(etag: etag, bytes: size, sent: 1)
    }

    private func multipart(_ file: RandomAccessFile, parts: [Range<Int64>], digests: [Digests], uploadID known: String?,
                           note: (UploadRecord.Stage) throws(UploadError) -> Void) throws(UploadError) -> Outcome {
        var uploadID = known
        var stored: [Int: S3Client.StoredPart] = [:]
        if let id = uploadID {
            if let listed = try client.listParts(key, uploadID: id) {
                stored = Dictionary(listed.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
            } else {
                uploadID = nil  // gone: completed meanwhile, aborted or expired
            }
        }
        if uploadID == nil {
            uploadID = try adoptOrCreate(&stored, note: note)
        }
        let id = uploadID!
        do {
            return try send(file, parts: parts, digests: digests, uploadID: id, stored: stored)
        } catch where error.code == .fileChanged {
            // What the server holds is no longer the file: abandon it, and begin anew next time.
            try? client.abortMultipartUpload(key, uploadID: id)
            try? note(.begun(uploadID: nil))
            throw error
        }
    }

    /// Sends the parts the server does not hold and completes the upload, unless the file
    /// changed meanwhile.
    private func send(_ file: RandomAccessFile, parts: [Range<Int64>], digests: [Digests], uploadID id: String,
                      stored: [Int: S3Client.StoredPart]) throws(UploadError) -> Outcome {
        let before = file.sizeAndModification
        var outcome = Outcome(etag: "", bytes: parts.last?.upperBound ?? 0)
        var etags: [String] = []
        for (index, part) in parts.enumerated() {
            let number = index + 1
            let expected = "\"\(Digests.hex(digests[index].md5))\""
            if let held = stored[number], held.etag.lowercased() == expected, held.size == Int64(part.count) {
                etags.append(held.etag)
                outcome.kept += 1
                continue
            }
            let etag = try file.descriptorForUpload(path) { fd throws(UploadError) in
                try client.uploadPart(key, uploadID: id, number: number, descriptor: fd, offset: part.lowerBound,
                                      length: Int64(part.count), digests: digests[index])
            }
            etags.append(etag)
            outcome.sent += 1
            progress(Int64(part.count))
        }
        guard let now = file.sizeAndModification, let before, now == before else {
            throw UploadError(.fileChanged, "\(path): the file changed while it was uploaded to \(client.describe(key)); it is left for a later run")
        }
        outcome.etag = try client.completeMultipartUpload(key, uploadID: id, etags: etags)
        return outcome
    }

    /// An unfinished upload of this key that the record never heard of (a kill between
    /// beginning it and storing its ID) is adopted, others abandoned; else a new one begins.
    private func adoptOrCreate(_ stored: inout [Int: S3Client.StoredPart],
                               note: (UploadRecord.Stage) throws(UploadError) -> Void) throws(UploadError) -> String {
        let unfinished = try client.multipartUploads(of: key)
        for stale in unfinished.dropLast() { try client.abortMultipartUpload(key, uploadID: stale) }
        if let newest = unfinished.last, let listed = try client.listParts(key, uploadID: newest) {
            stored = Dictionary(listed.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
            try note(.begun(uploadID: newest))
            return newest
        }
        let id = try client.createMultipartUpload(key)
        try note(.begun(uploadID: id))
        return id
    }

    /// The file's parts: one for a single PUT, else ``UploadSettings/partSize`` each, or larger
    /// (whole MiB) where that would take more than S3's 10,000 parts.
    static func plan(_ size: Int64, settings: UploadSettings) -> [Range<Int64>] {
        guard size > settings.singleRequestLimit else { return [0..<size] }
        let fewest = (size + maximumPartCount - 1) / maximumPartCount
        let step = max(settings.partSize, ((fewest + (1 << 20) - 1) >> 20) << 20)
        return stride(from: Int64(0), to: size, by: Int(step)).map { $0..<min($0 + step, size) }
    }

    private func digest(_ file: RandomAccessFile, _ part: Range<Int64>) throws(UploadError) -> Digests {
        try file.descriptorForUpload(path) { fd throws(UploadError) in
            do { return try Digests(descriptor: fd, offset: part.lowerBound, length: Int64(part.count)) } catch {
                throw UploadError(.fileChanged, "\(path): reading bytes \(part.lowerBound)–\(part.upperBound) for their checksum: \(error)")
            }
        }
    }

    /// S3's ETag for the object: the MD5 of a single PUT, or of the parts' MD5s with their count.
    static func expectedETag(_ digests: [Digests], multipart: Bool) -> String {
        guard multipart else { return "\"\(Digests.hex(digests.first?.md5 ?? []))\"" }
        let combined = (try? Digests(digests.flatMap(\.md5)))?.md5 ?? []
        return "\"\(Digests.hex(combined))-\(digests.count)\""
    }
}

extension RandomAccessFile {
    /// Runs `body` with the file's descriptor, a failure of the descriptor itself an ``UploadError``.
    func descriptorForUpload<T>(_ path: String, _ body: (Int32) throws(UploadError) -> T) throws(UploadError) -> T {
        do {
            return try using("uploading") { fd in try body(fd) }
        } catch let error as UploadError {
            throw error
        } catch {
            throw UploadError(.fileError, "\(path): \(error)")
        }
    }
}
