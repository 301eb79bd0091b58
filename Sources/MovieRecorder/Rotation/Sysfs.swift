import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Reading the one-value text files of sysfs.
enum Sysfs {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool { DirectoryEntries.isDirectory(path) }

    /// The names in a directory, without `.` and `..`; `nil` when it cannot be listed.
    static func entries(of directory: String) -> [String]? { DirectoryEntries.names(in: directory) }

    /// The text of `directory/file`. Sysfs gives an attribute at most a page, and a read
    /// asks the driver for a fresh value.
    static func text(_ directory: String, _ file: String) throws(GravitySourceError) -> String {
        do {
            let handle = try RandomAccessFile(path: directory + "/" + file, mode: .read)
            defer { try? handle.close() }
            return String(decoding: try handle.read(at: 0, count: 4096), as: UTF8.self)
        } catch let error as FileError {
            let reason = String(cString: strerror(error.errno))
            switch error.code {
            case .notFound:
                throw GravitySourceError(.missingFile, path: directory, file: file,
                                         "\(reason) — the device was removed, or its driver was unloaded; find the accelerometer again")
            case .permissionDenied:
                throw GravitySourceError(.unreadable, path: directory, file: file,
                                         "\(reason) — the file's permissions do not let this user read it; a udev rule can grant access")
            default:
                throw GravitySourceError(.unreadable, path: directory, file: file,
                                         "\(reason) — the driver could not read the sensor; it may be suspended or failing (see dmesg)")
            }
        } catch {
            throw GravitySourceError(.unreadable, path: directory, file: file, "\(error)")
        }
    }

    /// The trimmed text of `directory/file`, or `nil` when there is no such file.
    static func optionalText(_ directory: String, _ file: String) throws(GravitySourceError) -> String? {
        guard exists(directory + "/" + file) else { return nil }
        return trimmingSysfsWhitespace(try text(directory, file))
    }

    /// The one number `directory/file` holds, such as `-1021` or `0.009576806`.
    static func number(_ directory: String, _ file: String) throws(GravitySourceError) -> Double {
        let text = trimmingSysfsWhitespace(try self.text(directory, file))
        guard let value = Double(text), value.isFinite else {
            let shown = text.isEmpty ? "the file is empty" : "'\(text.prefix(40))' is not a number"
            throw GravitySourceError(.malformed, path: directory, file: file,
                                     "\(shown); it should hold one decimal value such as 1024 or 0.009576806 — "
                                     + "check that the directory is an IIO accelerometer's")
        }
        return value
    }

    /// Writes `text` and a newline to the attribute at `path`, as `echo text > path` does.
    /// - Returns: the system's reason when it failed, `nil` when it worked.
    static func write(_ text: String, to path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        let bytes = Array((text + "\n").utf8)
        let written = bytes.withUnsafeBytes { buffer in
            SystemCall.retrying { Glibc.write(descriptor, buffer.baseAddress, buffer.count) }
        }
        switch written {
        case .success(let count) where count == bytes.count: return nil
        case .success: return "a short write"
        case .failure(let error): return error.description
        }
    }
}
