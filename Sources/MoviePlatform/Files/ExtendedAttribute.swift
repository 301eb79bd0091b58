import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A file's extended attributes (`user.` names), which mark a file for tools that look, such as
/// a locked event clip for a deleter.
package enum ExtendedAttribute {
    /// Sets attribute `name` of the file at `path` to `value`.
    /// - Returns: false when the file system keeps no extended attributes (or refused this one).
    @discardableResult
    package static func set(_ name: String, to value: String, at path: String) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.withUnsafeBytes { CLinux_setxattr(path, name, $0.baseAddress, $0.count) } == 0
    }

    /// Sets attribute `name` of the file at `path` to `value`.
    /// - Returns: nil, or the error: `ENOTSUP` where the file system keeps no user attributes.
    package static func store(_ name: String, _ value: String, at path: String) -> Errno? {
        let bytes = Array(value.utf8)
        let result = bytes.withUnsafeBytes { CLinux_setxattr(path, name, $0.baseAddress, $0.count) }
        return result == 0 ? nil : Errno(errno)
    }

    /// The value of attribute `name` of the file at `path`; nil when it has none.
    package static func value(_ name: String, at path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { CLinux_getxattr(path, name, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(count)), as: UTF8.self)
    }
}
