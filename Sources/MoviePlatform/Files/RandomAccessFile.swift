import MovieContainer
#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Darwin)
import Darwin
#endif

extension FileError {
    /// An error for `step` on `path` that failed with the system error number `errno`.
    package init(path: String, step: String, errno: Int32) {
        let code: Code
        switch errno {
        case ENOENT: code = .notFound
        case EACCES, EPERM, EROFS: code = .permissionDenied
        case EEXIST: code = .alreadyExists
        case ENOSPC, EDQUOT: code = .noSpace
        case EFBIG: code = .fileTooLarge
        case EIO: code = .ioError
        case EISDIR: code = .isDirectory
        default: code = .other
        }
        self.init(code: code, path: path, step: step, errno: errno, reason: String(cString: strerror(errno)))
    }
}

/// An open file, read and written by absolute offset.
///
/// Reads and writes at distinct offsets may run on several threads at once (what `pread` and
/// `pwrite` are for). The descriptor belongs to an ``OwnedDescriptor``: ``close()`` waits for
/// the calls under way on other threads, and a call after it throws a ``FileError`` (`EBADF`)
/// naming the step, so a closed descriptor number is never used. A file left open is closed
/// when the last reference goes, so a thrown error never leaks it. The corresponding C
/// functions are `open`, `pread`, `pwrite`, `fdatasync`, `fstat` and `close`; calls interrupted
/// by a signal are retried.
package final class RandomAccessFile: MovieByteSink, MovieByteSource, MovieScratchStorage, Sendable {
    private let descriptor: OwnedDescriptor
    /// The path the file was opened with, for messages.
    package let path: String

    /// How to open a file.
    package enum Mode: Sendable {
        /// Read only; the file must exist.
        case read
        /// Read and write an existing file, never truncating it.
        case update
        /// Create a new file for writing; fail if it exists.
        case createNew
        /// Create or truncate a file for writing.
        case createOrTruncate
    }

    /// Opens `path`.
    /// Only regular files are opened: a FIFO, socket or device is refused before any I/O,
    /// since reading a FIFO with no writer would block forever. The file is opened with
    /// `O_NONBLOCK` (which regular files ignore) so that even a FIFO that appears between the
    /// check and the `open` cannot block it.
    /// A file created gets `permissions` (0644 unless asked otherwise) less the process's umask.
    /// - Throws: ``FileError`` naming the path and the step; ``FileError/Code/notRegularFile``
    ///   for anything but a regular file.
    package init(path: String, mode: Mode, permissions: UInt32 = 0o644) throws {
        self.path = path
        let step = mode == .read || mode == .update ? "opening" : "creating"
        var existing = stat()
        if stat(path, &existing) == 0 { try Self.requireRegularFile(existing.st_mode, path: path, step: step) }
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .update: flags = O_RDWR
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        case .createOrTruncate: flags = O_RDWR | O_CREAT | O_TRUNC
        }
        let opened = SystemCall.retrying { open(path, flags | O_CLOEXEC | O_NONBLOCK, mode_t(permissions)) }
        let fd: Int32
        switch opened {
        case .success(let descriptor): fd = descriptor
        case .failure(let failure):
            var code = failure.rawValue
            // O_CREAT | O_EXCL reports a directory as EEXIST; name what is really there.
            if code == EEXIST, stat(path, &existing) == 0, (existing.st_mode & S_IFMT) == S_IFDIR { code = EISDIR }
            throw FileError(path: path, step: step, errno: code)
        }
        var info = stat()
        do {
            guard fstat(fd, &info) == 0 else { throw FileError(path: path, step: step, errno: errno) }
            try Self.requireRegularFile(info.st_mode, path: path, step: step)
        } catch {
            Glibc.close(fd)
            throw error
        }
        descriptor = OwnedDescriptor(fd)
    }

    /// Throws unless `mode` (a `stat` mode) is a regular file's.
    private static func requireRegularFile(_ mode: mode_t, path: String, step: String) throws {
        let what: String
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw FileError(path: path, step: step, errno: EISDIR)
        case S_IFIFO: what = "it is a FIFO (named pipe)"
        case S_IFSOCK: what = "it is a socket"
        case S_IFCHR: what = "it is a character device"
        case S_IFBLK: what = "it is a block device"
        default: what = "it is not a regular file"
        }
        throw FileError(code: .notRegularFile, path: path, step: step, errno: 0, reason: what)
    }

    private init(descriptor: Int32, path: String) {
        self.descriptor = OwnedDescriptor(descriptor)
        self.path = path
    }

    /// Creates an unnamed scratch file in the directory of `path`, on the same file system as
    /// the file it serves: it is unlinked as soon as it is created, so it never shows up in the
    /// directory and its space is freed when it is closed or the process ends, even by a crash.
    /// The corresponding C functions are `mkstemp` and `unlink`.
    /// - Throws: ``FileError`` naming the directory and the step.
    package static func scratchFile(beside path: String) throws -> RandomAccessFile {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var template = Array(((directory.isEmpty ? "" : directory) + "/.movrec-scratch-XXXXXX").utf8CString)
        let created = SystemCall.retrying { template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } }
        let name = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let fd: Int32
        switch created {
        case .success(let descriptor): fd = descriptor
        case .failure(let error): throw FileError(path: name, step: "creating a scratch file", errno: error.rawValue)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // as O_CLOEXEC does for the other files (mkostemp is a GNU extension Swift does not see)
        guard unlink(name) == 0 else {
            let error = FileError(path: name, step: "unlinking a new scratch file", errno: errno)
            Glibc.close(fd)
            _ = unlink(name)
            throw error
        }
        return RandomAccessFile(descriptor: fd, path: "scratch file in \(directory.isEmpty ? "/" : directory)")
    }

    /// A name for a new hidden file in the directory of `path`, unique in this process and
    /// unlikely across processes: `prefix`, the process id, a counter and six random letters.
    package static func scratchName(beside path: String, prefix: String) -> String {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let random = String((0..<6).map { _ in letters.randomElement()! })
        let serial = scratchCounter.withLock { value -> Int in
            value += 1
            return value
        }
        return (directory.isEmpty ? "" : directory) + "/\(prefix)\(getpid())-\(serial)-\(random)"
    }

    private static let scratchCounter = LockedValue(0)

    /// A scratch file beside this one (``scratchFile(beside:)``), for the sample tables a
    /// ``MovieWriter`` sets aside during a long recording; `nil` when none can be created there
    /// (a directory the process may not write to), so the writer keeps the tables in memory
    /// rather than failing a recording that could go on.
    package func makeScratchStorage() throws -> (any MovieScratchStorage)? {
        try? RandomAccessFile.scratchFile(beside: path)
    }

    /// Closes the file once the calls under way on other threads have returned. Later calls
    /// throw; closing again does nothing.
    /// - Throws: ``FileError`` when the system reports an error closing it.
    package func close() throws {
        if let number = descriptor.close() { throw FileError(path: path, step: "closing", errno: number) }
    }

    /// Runs `body` with the open descriptor, which stays open until `body` returns.
    /// - Throws: ``FileError`` (`EBADF`) for `step` when the file is closed, or what `body` throws.
    package func using<Result>(_ step: String, _ body: (Int32) throws -> Result) throws -> Result {
        guard let result = try descriptor.borrow(body) else { throw FileError(path: path, step: step, errno: EBADF) }
        return result
    }

    /// Sets the file's permission bits to exactly `permissions` (the umask does not apply), such
    /// as 0o600. The corresponding C function is `fchmod`.
    /// - Throws: ``FileError`` naming the path and the mode.
    package func setPermissions(_ permissions: UInt32) throws {
        try using("setting permissions") { fd in
            if case .failure(let error) = SystemCall.retrying({ fchmod(fd, mode_t(permissions)) }) {
                throw FileError(path: path, step: "setting its permissions to 0\(String(permissions, radix: 8))", errno: error.rawValue)
            }
        }
    }

    /// The file's size in bytes.
    package var size: UInt64 {
        var info = stat()
        guard descriptor.borrow({ fstat($0, &info) }) == 0 else { return 0 }
        return UInt64(info.st_size)
    }

    /// The file's size and last modification (nanoseconds since 1970), which change together
    /// when someone writes to it; nil when `fstat` fails.
    package var sizeAndModification: (size: UInt64, modified: Int64)? {
        var info = stat()
        guard descriptor.borrow({ fstat($0, &info) }) == 0 else { return nil }
        return (UInt64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        let done = try result.withUnsafeMutableBytes { try read(at: offset, into: $0) }
        if done < count { result.removeLast(count - done) }
        return result
    }

    /// Reads bytes at `offset` into `buffer`, without an intermediate copy.
    /// - Returns: The number of bytes read: `buffer.count`, or fewer at the end of the file.
    /// - Throws: ``FileError`` naming the path, the byte count and the offset.
    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try using("reading") { fd in
            var done = 0
            while done < buffer.count {
                let n = try SystemCall.retrying { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done)) }
                    .get { FileError(path: path, step: "reading \(buffer.count) bytes at byte \(offset)", errno: $0.rawValue) }
                if n == 0 { break }
                done += n
            }
            return done
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try using("writing") { fd in
            var done = 0
            while done < bytes.count {
                let n = try SystemCall.retrying {
                    pwrite(fd, bytes.baseAddress! + done, min(bytes.count - done, Self.maximumWriteSize), off_t(offset) + off_t(done))
                }.get { FileError(path: path, step: "writing \(bytes.count) bytes at byte \(offset)", errno: $0.rawValue) }
                done += n
            }
        }
    }

    /// Writes `buffers` one after another from `offset` with `pwritev`, up to `IOV_MAX` buffers
    /// and ``maximumWriteSize`` bytes a call, continuing after a partial write.
    package func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        try using("writing") { fd in
            let total = buffers.reduce(0) { $0 + $1.count }
            var vectors = buffers.compactMap { buffer in
                buffer.isEmpty ? nil : iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
            }
            var first = 0
            var position = off_t(offset)
            try vectors.withUnsafeMutableBufferPointer { vectors in
                while first < vectors.count {
                    var end = first, bytes = 0
                    while end < vectors.count, end - first < Self.maximumVectors, bytes < Self.maximumWriteSize {
                        bytes += vectors[end].iov_len
                        end += 1
                    }
                    // The last buffer may reach past the limit: this call writes only its start.
                    let excess = max(0, bytes - Self.maximumWriteSize)
                    vectors[end - 1].iov_len -= excess
                    let written = SystemCall.retrying { pwritev(fd, vectors.baseAddress! + first, Int32(end - first), position) }
                    vectors[end - 1].iov_len += excess
                    let n = try written.get { FileError(path: path, step: "writing \(total) bytes at byte \(offset)", errno: $0.rawValue) }
                    guard n > 0 else { throw FileError(path: path, step: "writing \(total) bytes at byte \(offset)", errno: EIO) }
                    position += off_t(n)
                    var left = n
                    while left > 0, left >= vectors[first].iov_len {  // whole buffers written
                        left -= vectors[first].iov_len
                        first += 1
                    }
                    if left > 0 {  // a partial write ends inside this buffer
                        vectors[first].iov_base = vectors[first].iov_base! + left
                        vectors[first].iov_len -= left
                    }
                }
            }
        }
    }

    /// The most buffers one `pwritev` takes (`IOV_MAX`, 1024 on Linux).
    private static let maximumVectors = 1024

    /// The most bytes one write call takes; longer writes are split.
    ///
    /// A buffered write gets page-cache folios as large as the part of the write that falls in
    /// them (up to 2 MiB), and in a virtual machine that reports free memory to its host, the
    /// first touch of each large folio is a host page fault; writes of at most 512 KiB, as `cp`
    /// makes, do not pay it and cost about one system call per 100 µs of copying
    /// (Benchmarks/README.md, row 17, has the measurements).
    package static let maximumWriteSize = 512 << 10

    /// Reserves disk blocks for the first `count` bytes before they are written, without
    /// changing the file's size (`fallocate` with `FALLOC_FL_KEEP_SIZE`).
    ///
    /// Writes into reserved blocks skip the file system's per-block allocation (on ext4 about a
    /// tenth of a buffered write), and a full disk shows before anything is written. Blocks
    /// reserved past the end stay allocated until the file is cut (``truncate(to:)``, even to
    /// its own size, gives them back).
    /// - Throws: ``FileError`` (``FileError/Code/noSpace``) when the disk cannot hold them; a file
    ///   system that cannot reserve is not an error.
    package func reserve(_ count: UInt64) throws {
        try using("reserving space") { fd in
            guard count > 0, count <= UInt64(Int64.max) else { return }
            let reserved = SystemCall.retrying { CLinux_fallocate(fd, CLinux_FALLOC_FL_KEEP_SIZE(), 0, Int64(count)) }
            if case .failure(let error) = reserved, [ENOSPC, EDQUOT, EFBIG].contains(error.rawValue) {
                throw FileError(path: path, step: "reserving \(count) bytes", errno: error.rawValue)
            }
        }
    }

    package func synchronize() throws {
        try using("syncing") { fd in
            if case .failure(let error) = SystemCall.retrying({ fdatasync(fd) }) {
                throw FileError(path: path, step: "flushing to disk (fdatasync)", errno: error.rawValue)
            }
        }
    }

    /// Flushes the file's data and all its metadata, extended attributes included (`fsync`;
    /// ``synchronize()`` is `fdatasync`, which may leave an attribute in the journal).
    package func synchronizeAll() throws {
        try using("syncing") { fd in
            if case .failure(let error) = SystemCall.retrying({ fsync(fd) }) {
                throw FileError(path: path, step: "flushing to disk (fsync)", errno: error.rawValue)
            }
        }
    }

    package func truncate(to size: UInt64) throws {
        try using("truncating") { fd in
            guard ftruncate(fd, off_t(size)) == 0 else { throw FileError(path: path, step: "cutting the file to \(size) bytes", errno: errno) }
        }
    }

    /// A Boolean value that indicates whether the file still has a name on disk: false once it,
    /// or its directory, was deleted while open (writes then go nowhere anyone can find).
    package var isLinked: Bool {
        var info = stat()
        guard descriptor.borrow({ fstat($0, &info) }) == 0 else { return false }
        return info.st_nlink > 0
    }

    /// Whether a path exists.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Removes a file; a missing file is not an error.
    package static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileError(path: path, step: "removing", errno: errno) }
    }

    /// The whole file's bytes, mapped read-only (`mmap`) and, unless asked otherwise, read ahead
    /// into memory, without a copy; a file that cannot be mapped is read instead. The mapping outlives this object and
    /// is removed (`munmap`) when the last reference to the bytes goes.
    ///
    /// - Important: the file must not be truncated while it is mapped: reading a page past its
    ///   new end raises `SIGBUS`. Nor should it be written, or the bytes change.
    /// - Throws: ``FileError`` when the file cannot be read.
    /// - Parameter readAhead: fault every page in now; `false` leaves that to the first reads,
    ///   for a caller that reads on another thread or only part of the file.
    package func mappedContents(readAhead: Bool = true) throws -> ImmutableBytes {
        let count = Int(size)
        // Read ahead only what memory can hold; a larger file is faulted in as it is used.
        guard count > 0, let region = map(at: 0, count: count, budget: nil, populate: readAhead && count <= Self.readAheadLimit) else {
            return ImmutableBytes(try read(at: 0, count: count))  // empty, or not mappable: not a regular file
        }
        // The bytes keep the region, which unmaps itself when they go.
        return ImmutableBytes(unsafeUnchangingBuffer: UnsafeRawBufferPointer(start: region.base, count: count)) { _ in
            withExtendedLifetime(region) {}
        }
    }

    /// The largest file ``mappedContents()`` reads ahead in one go.
    private static let readAheadLimit = 1 << 31

    /// Reads a whole file.
    package static func readAll(_ path: String) throws -> [UInt8] {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        return try file.read(at: 0, count: Int(file.size))
    }
}
