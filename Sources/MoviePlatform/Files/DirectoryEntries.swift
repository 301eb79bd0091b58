#if canImport(Glibc)
import Glibc
#endif

/// The files of a directory and what they hold: the event clips' byte budget, the IIO devices.
package enum DirectoryEntries {
    /// The names in `directory`, without `.` and `..`; `nil` when it cannot be listed.
    package static func names(in directory: String) -> [String]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The size of the regular file at `path` (symbolic links not followed); nil for anything
    /// else or when it cannot be read.
    package static func regularFileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    /// Whether `path` is a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
