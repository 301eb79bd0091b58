#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// The text of a NUL-terminated C buffer.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The first line of the file at `path` without its newline (sysfs and /proc files), or nil.
func firstLine(of path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 1024)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
    return String(nulTerminated: buffer).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
}
