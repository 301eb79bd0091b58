import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// Repairs movie files on disk: the file-level side of `MovieRepair`.
public enum MovieFileRepair {
    /// Turns the crashed fragmented movie at `path` into an ordinary movie, in place, or into a
    /// copy at `outputPath` (the original is then left as it was).
    /// - Throws: `MovieRepair.RepairError` with the reason a file cannot be repaired,
    ///   `FileError` for files that cannot be read or written, `MovieFormatError` for a
    ///   movie atom that does not parse.
    @discardableResult
    public static func repair(path: String, outputPath: String? = nil, overwrite: Bool = false) throws -> MovieRepair.Report {
        var target = path
        if let outputPath {
            let source = try RandomAccessFile(path: path, mode: .read)
            defer { try? source.close() }
            let copy = try RandomAccessFile(path: outputPath, mode: overwrite ? .createOrTruncate : .createNew)
            do {
                var offset: UInt64 = 0
                while offset < source.size {
                    let block = try source.read(at: offset, count: 4 << 20)
                    try copy.write(block, at: offset)
                    offset += UInt64(block.count)
                }
                try copy.close()
            } catch {
                try? copy.close()
                try? RandomAccessFile.remove(outputPath)
                throw error
            }
            target = outputPath
        }
        let file = try RandomAccessFile(path: target, mode: .update)
        defer { try? file.close() }
        do {
            let report = try MovieRepair.repair(file)
            try file.synchronize()
            return report
        } catch {
            if outputPath != nil { try? RandomAccessFile.remove(target) }
            throw error
        }
    }
}
