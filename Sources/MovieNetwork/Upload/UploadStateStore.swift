import MoviePlatform

/// Where the queue keeps each file's ``UploadRecord`` so that it survives a kill, a power cut
/// or a reboot: an extended attribute on the file itself (`user.movierecorder.upload`), made
/// durable with the file's fsync, as openpilot marks its uploads; where the file system keeps
/// none (FAT and exFAT cards, older tmpfs), a hidden journal beside the files
/// (``UploadJournal``, `.movierecorder-uploads`), never a visible file among the recordings.
final class UploadStateStore: Sendable {
    static let attribute = "user.movierecorder.upload"
    private let journals = LockedValue<[String: UploadJournal]>([:])

    /// The file's record, or nil when it has none.
    func record(for path: String) -> UploadRecord? {
        if let value = ExtendedAttribute.value(Self.attribute, at: path) { return UploadRecord(encoded: value) }
        guard let journal = existingJournal(for: path) else { return nil }
        return journal.value(for: Self.name(of: path)).flatMap { UploadRecord(encoded: $0) }
    }

    /// Stores the file's record durably.
    /// - Throws: ``UploadError`` (`.fileError`) when neither the attribute nor the journal can be written.
    func store(_ record: UploadRecord, for path: String) throws(UploadError) {
        if ExtendedAttribute.set(Self.attribute, to: record.encoded, at: path) {
            do {
                try RandomAccessFile(path: path, mode: .read).synchronize()
                return
            } catch {
                throw UploadError(.fileError, "\(path): making the upload's state durable (fsync): \(error)")
            }
        }
        do {
            try journal(for: path).append(record.encoded, for: Self.name(of: path))
        } catch {
            throw UploadError(.fileError, "\(path): the file system keeps no extended attributes, and the upload journal beside it could not be written: \(error)")
        }
    }

    /// Forgets the file (it was deleted): its journal line, if it has one.
    func forget(_ path: String) {
        try? existingJournal(for: path)?.append("", for: Self.name(of: path))
    }

    private func existingJournal(for path: String) -> UploadJournal? {
        let directory = Self.directory(of: path)
        if let open = journals.withLock({ $0[directory] }) { return open }
        guard RandomAccessFile.exists(UploadJournal.path(in: directory)) else { return nil }
        return try? journal(for: path)
    }

    private func journal(for path: String) throws -> UploadJournal {
        let directory = Self.directory(of: path)
        if let open = journals.withLock({ $0[directory] }) { return open }
        let journal = try UploadJournal(directory: directory)
        return journals.withLock { journals in
            if let raced = journals[directory] { return raced }
            journals[directory] = journal
            return journal
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}
