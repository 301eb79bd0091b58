import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Where the queue keeps each file's ``UploadRecord`` so that it survives a kill, a power cut
/// or a reboot: an extended attribute on the file itself (`user.movierecorder.upload`), made
/// durable with the file's fsync, as openpilot marks its uploads; where the file system keeps
/// none (FAT and exFAT cards, ramfs, tmpfs before Linux 6.6), a hidden journal beside the files
/// (``UploadJournal``, `.movierecorder-uploads`), never a visible file among the recordings.
/// One queue writes a directory's journal at a time.
final class UploadStateStore: Sendable {
    static let attribute = "user.movierecorder.upload"
    private let journals = LockedValue<[String: UploadJournal]>([:])

    /// The file's record, or nil when it has none.
    func record(for path: String) -> UploadRecord? {
        if let value = ExtendedAttribute.value(Self.attribute, at: path) { return UploadRecord(encoded: value) }
        guard let journal = existingJournal(for: path) else { return nil }
        return journal.value(for: Self.name(of: path)).flatMap { UploadRecord(encoded: $0) }
    }

    /// Stores the file's record durably: in its attribute, flushed with `fsync`; in the
    /// journal only where the file system keeps no user attributes.
    /// - Throws: ``UploadError``: `.fileChanged` when the file is gone, `.fileError` when the
    ///   record cannot be written.
    func store(_ record: UploadRecord, for path: String) throws(UploadError) {
        switch ExtendedAttribute.store(Self.attribute, record.encoded, at: path) {
        case nil:
            do {
                try RandomAccessFile(path: path, mode: .read).synchronizeAll()
            } catch {
                throw UploadError(.fileError, "\(path): making the upload's state durable (fsync): \(error)")
            }
        case let error? where error.rawValue == ENOTSUP || error.rawValue == EOPNOTSUPP:
            do {
                try journal(for: path).append(record.encoded, for: Self.name(of: path))
            } catch {
                throw UploadError(.fileError, "\(path): the file system keeps no extended attributes, and the upload journal beside it could not be written: \(error)")
            }
        case let error? where error.rawValue == ENOENT:
            throw UploadError(.fileChanged, "\(path): the file was removed while it was uploaded")
        case let error?:
            throw UploadError(.fileError, "\(path): storing the upload's state in the attribute \(Self.attribute): \(error)")
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

    /// The directory's journal, opened (or created) once: under the lock, so two workers never
    /// create two.
    private func journal(for path: String) throws -> UploadJournal {
        let directory = Self.directory(of: path)
        return try journals.withLock { journals in
            if let open = journals[directory] { return open }
            let journal = try UploadJournal(directory: directory)
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
