import MoviePlatform

/// The upload state of a directory whose file system keeps no extended attributes: a hidden
/// file, `.movierecorder-uploads`, of lines `NAME<TAB>RECORD`, appended and fsynced one at a
/// time; the last line for a name wins and an empty record forgets it. A line torn by a power
/// cut is ignored. It is rewritten without its old lines when it has grown past 1 MiB.
final class UploadJournal: Sendable {
    static let fileName = ".movierecorder-uploads"
    private let path: String
    private let state: LockedValue<(file: RandomAccessFile, size: UInt64, values: [String: String])>

    static func path(in directory: String) -> String { "\(directory)/\(fileName)" }

    init(directory: String) throws {
        path = Self.path(in: directory)
        // A new journal is put in place durably, its directory entry flushed with it.
        let file = RandomAccessFile.exists(path) ? try RandomAccessFile(path: path, mode: .update)
            : try DurableFilePublisher.publishForAppending([], at: path, permissions: 0o600)
        let bytes = try file.read(at: 0, count: Int(file.size))
        var size = UInt64(bytes.count)
        if let last = bytes.last, last != 10 {
            // A line torn by a power cut: end it, so the next record starts a line of its own.
            try [UInt8(10)].withUnsafeBytes { try file.write($0, at: size) }
            size += 1
        }
        state = LockedValue((file, size, Self.parse(bytes)))
    }

    func value(for name: String) -> String? { state.withLock { $0.values[name] } }

    /// Appends the name's new record (empty to forget it) and waits until it is on the disk.
    func append(_ record: String, for name: String) throws {
        try state.withLock { state in
            let line = Array("\(name)\t\(record)\n".utf8)
            try line.withUnsafeBytes { try state.file.write($0, at: state.size) }
            try state.file.synchronize()
            state.size += UInt64(line.count)
            state.values[name] = record.isEmpty ? nil : record
            if state.size > 1 << 20 { try compact(&state) }
        }
    }

    /// Writes the live lines to a new file and renames it over the journal.
    private func compact(_ state: inout (file: RandomAccessFile, size: UInt64, values: [String: String])) throws {
        let text = state.values.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)\n" }.joined()
        let file = try DurableFilePublisher.publishForAppending(Array(text.utf8), at: path, permissions: 0o600)
        try? state.file.close()
        state.file = file
        state.size = file.size
    }

    static func parse(_ bytes: [UInt8]) -> [String: String] {
        var values: [String: String] = [:]
        // Only whole lines: a power cut may leave the last one without its line end.
        for line in bytes.split(separator: 10, omittingEmptySubsequences: true) where line.endIndex < bytes.endIndex || bytes.last == 10 {
            guard let tab = line.firstIndex(of: 9) else { continue }
            let name = String(decoding: line[..<tab], as: UTF8.self)
            let record = String(decoding: line[(tab + 1)...], as: UTF8.self)
            values[name] = record.isEmpty ? nil : record
        }
        return values
    }
}
