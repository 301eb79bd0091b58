import MovieContainer
#if canImport(Glibc)
import Glibc
#endif

/// Free space on file systems.
package enum FileSystemSpace {
    /// The bytes available to unprivileged users on the file system holding `path` (or its
    /// directory, for a path that does not exist yet); `nil` when it cannot be read. The
    /// corresponding C function is `statvfs`.
    package static func available(at path: String) -> UInt64? {
        var info = statvfs()
        if statvfs(path, &info) == 0 { return UInt64(info.f_bavail) * UInt64(info.f_frsize) }
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        guard statvfs(directory.isEmpty ? "/" : directory, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}
