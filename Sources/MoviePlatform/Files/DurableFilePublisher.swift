import MovieContainer
#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Puts a whole file in place in one step, on disk before it is visible: written under a
/// temporary name beside it, flushed (`fdatasync`), then renamed over the path, and the
/// directory flushed. A crash at any point leaves either the old file or the new one, never a
/// part; at worst a hidden `.movrec-publish-` file remains.
package enum DurableFilePublisher {
    /// Writes `bytes` to `path`; without `replacing`, an existing file is left alone and the
    /// call throws ``FileError`` with ``FileError/Code/alreadyExists``. With `permissions` the file
    /// has exactly those bits (0o600, say), set before it has its name and whatever the umask;
    /// without, 0644 less the umask.
    /// - Throws: ``FileError`` naming the path and the step.
    package static func publish(_ bytes: [UInt8], at path: String, replacing: Bool, permissions: UInt32? = nil) throws {
        _ = try put(bytes, at: path, replacing: replacing, permissions: permissions, keepingOpen: false)
    }

    /// Puts `bytes` in place at `path` as ``publish(_:at:replacing:permissions:)`` does,
    /// replacing what is there, and returns the file still open, to append to: the file put in
    /// place, even if another is renamed over its name later. Its ``RandomAccessFile/path`` is
    /// the hidden name it was written under.
    /// - Throws: ``FileError`` naming the path and the step.
    package static func publishForAppending(_ bytes: [UInt8], at path: String, permissions: UInt32) throws -> RandomAccessFile {
        try put(bytes, at: path, replacing: true, permissions: permissions, keepingOpen: true)!
    }

    /// Writes and flushes a hidden file beside `path`, renames it there and flushes the
    /// directory; returns the file open with `keepingOpen`, else closes it before the rename.
    private static func put(_ bytes: [UInt8], at path: String, replacing: Bool, permissions: UInt32?,
                            keepingOpen: Bool) throws -> RandomAccessFile? {
        let temporary = RandomAccessFile.scratchName(beside: path, prefix: ".movrec-publish-")
        var file: RandomAccessFile?
        do {
            do {
                // With permissions asked for, created for the owner alone: no one can open it
                // before it has the bits asked for.
                file = try RandomAccessFile(path: temporary, mode: .createNew, permissions: permissions == nil ? 0o644 : 0o600)
            } catch let error as FileError {
                throw FileError(path: path, step: "creating a hidden file beside it to write into", errno: error.errno)
            }
            if let permissions { try file?.setPermissions(permissions) }
            try bytes.withUnsafeBytes { try file?.write($0, at: 0) }
            try file?.synchronize()
            if !keepingOpen {
                try file?.close()
                file = nil
            }
            try move(temporary, to: path, replacing: replacing)
        } catch {
            try? file?.close()
            try? RandomAccessFile.remove(temporary)
            throw error
        }
        synchronizeDirectory(of: path)
        return file
    }

    /// Renames; without `replacing`, atomically refuses an existing target (`renameat2`'s
    /// `RENAME_NOREPLACE`, or `link` and `unlink` where the file system lacks it).
    private static func move(_ from: String, to path: String, replacing: Bool) throws {
        if replacing {
            guard rename(from, path) == 0 else { throw FileError(path: path, step: "renaming the finished file into place", errno: errno) }
            return
        }
        if CLinux_renameNoReplace(from, path) == 0 { return }
        guard errno == EINVAL || errno == ENOSYS else { throw FileError(path: path, step: "renaming the finished file into place", errno: errno) }
        if link(from, path) == 0 {
            try? RandomAccessFile.remove(from)
            return
        }
        // A file system with neither (some FUSE and SMB mounts): checked, then renamed, which
        // another process could race.
        guard [EPERM, EOPNOTSUPP, ENOSYS].contains(errno) else { throw FileError(path: path, step: "linking the finished file into place", errno: errno) }
        guard !RandomAccessFile.exists(path) else { throw FileError(path: path, step: "putting the finished file in place", errno: EEXIST) }
        guard rename(from, path) == 0 else { throw FileError(path: path, step: "renaming the finished file into place", errno: errno) }
    }

    /// Flushes the directory holding `path`, so the rename survives a power cut; a directory
    /// that cannot be opened or flushed is left as it is (the file itself is on disk).
    private static func synchronizeDirectory(of path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }
}
