#if canImport(Glibc)
import Glibc
#endif

/// A file that holds a secret on its first line (an access token, `user:password`), kept as ssh
/// keeps a private key: owned by this user, and neither readable nor writable by anyone else.
package enum SecretFile {
    /// Why a secret file cannot be used: what is wrong and what to do, naming the file.
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// The file's first line, without its line end; `nil` when there is no such file.
    /// - Throws: ``Problem`` when the file is not a regular file of this user's, others may read
    ///   or write it, or it cannot be read.
    package static func firstLine(of path: String) throws(Problem) -> String? {
        guard let bytes = try contents(of: path) else { return nil }
        let line = bytes.prefix { $0 != 10 }
        return String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
    }

    /// The whole file (a credentials file of several lines); `nil` when there is no such file.
    /// - Throws: ``Problem`` as ``firstLine(of:)`` does.
    package static func contents(of path: String) throws(Problem) -> [UInt8]? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw Problem(description: "\(path): \(String(cString: strerror(errno))) — check the path")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Problem(description: "\(path) is not a regular file (a link, a directory or a device); give the secret's own file")
        }
        guard info.st_uid == geteuid() else {
            throw Problem(description: "\(path) belongs to another user; the secret's file must be this user's own")
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw Problem(description: "\(path) may be read or written by others (mode \(mode)); make it private: chmod 600 \(path)")
        }
        do { return try RandomAccessFile.readAll(path) } catch {
            throw Problem(description: "\(path): \(error)")
        }
    }

    /// Creates `path` with `secret` and a newline, readable and writable by this user only; an
    /// existing file is never replaced.
    /// - Throws: ``Problem`` when the file exists or cannot be created or written.
    package static func create(_ path: String, holding secret: String) throws(Problem) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Problem(description: "creating \(path): \(String(cString: strerror(errno))) — check the directory")
        }
        defer { close(descriptor) }
        let bytes = Array((secret + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw Problem(description: "writing \(path): \(reason) — check the disk")
        }
    }
}
