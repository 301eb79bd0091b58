import MovieContainer
#if canImport(Glibc)
import Glibc
#endif

/// What is at a path, a symbolic link there not followed: its kind, its owner and its
/// permission bits, for refusing a directory or a file name that someone else could control.
/// The corresponding C function is `lstat`.
package struct PathStatus: Sendable {
    /// What kind of file is at the path.
    package enum Kind: Sendable {
        case regularFile, directory, symbolicLink, other
    }

    package let kind: Kind
    /// The owner's user ID.
    package let owner: UInt32
    /// The permission bits with the set-user-ID, set-group-ID and sticky bits (`st_mode & 07777`).
    package let permissions: UInt32

    /// What is at `path` now, or nil when nothing is.
    /// - Throws: ``FileError`` naming the path when it cannot be looked at (a directory on the
    ///   way that may not be searched, a name too long).
    package static func at(_ path: String) throws -> PathStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw FileError(path: path, step: "looking at what is there (lstat)", errno: errno)
        }
        let kind: Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regularFile
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        return PathStatus(kind: kind, owner: UInt32(info.st_uid), permissions: UInt32(info.st_mode) & 0o7777)
    }

    /// A Boolean value that indicates whether the process's effective user owns it.
    package var isOwnedByThisUser: Bool { owner == UInt32(geteuid()) }

    /// A Boolean value that indicates whether users other than its owner and group may write it.
    package var isWritableByOthers: Bool { permissions & 0o002 != 0 }

    /// A Boolean value that indicates whether the sticky bit is set: in a directory, only a
    /// file's owner may remove or rename it.
    package var isSticky: Bool { permissions & 0o1000 != 0 }
}
