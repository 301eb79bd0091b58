import MovieContainer
#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Part of a file mapped read-only into memory, its pages faulted in when mapped
/// (`MAP_POPULATE`) unless asked otherwise, unmapped when the last reference goes.
///
/// Reading a mapping past the end of the file raises SIGBUS, so a region is only made for bytes
/// the file had when it was mapped; a file cut shorter by another process while a region is in
/// use is the one case this cannot guard against (as with any mapped reader, x264's included).
package final class MappedRegion: @unchecked Sendable {
    // @unchecked: the mapping is read-only and never changes until deinit.
    private let mapping: UnsafeMutableRawPointer
    private let mappedLength: Int
    /// The first requested byte.
    package let base: UnsafeRawPointer
    package let count: Int
    private let budget: MappingBudget?

    fileprivate init(mapping: UnsafeMutableRawPointer, mappedLength: Int, base: UnsafeRawPointer, count: Int,
                     budget: MappingBudget?) {
        self.mapping = mapping
        self.mappedLength = mappedLength
        self.base = base
        self.count = count
        self.budget = budget
    }

    deinit {
        munmap(mapping, mappedLength)
        budget?.giveBack()
    }
}

/// Faults in the pages under `range` of `buffer`, which lies in a mapping, so that a reader on
/// another thread finds them mapped (`MADV_POPULATE_READ`, Linux 5.14; on older kernels by
/// reading a byte of each page).
///
/// A quarter of a megabyte per call: the call holds the process's memory-map lock while it
/// works, and a thread writing from the same mapping (or mapping memory) waits for it, so a
/// long call would stall the writer.
package func prefaultMappedPages(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) {
    guard let base = buffer.baseAddress, !range.isEmpty, range.lowerBound >= 0, range.upperBound <= buffer.count else { return }
    let page = Int(RandomAccessFile.pageSize)
    let step = 1 << 18
    for chunk in stride(from: range.lowerBound, to: range.upperBound, by: step) {
        let start = Int(bitPattern: base + chunk)
        let alignedStart = start - start % page
        let length = start + min(step, range.upperBound - chunk) - alignedStart
        if madvise(UnsafeMutableRawPointer(bitPattern: alignedStart), length, CLinux_MADV_POPULATE_READ()) == 0 { continue }
        var sum: UInt8 = 0
        for offset in stride(from: chunk, to: min(chunk + step, range.upperBound), by: page) { sum &+= buffer[offset] }
        withExtendedLifetime(sum) {}
    }
}

/// A limit on how many regions are mapped at once, like a buffer pool's size: the mapped pages
/// count towards the process's resident memory. A reader waiting for a place is woken when a
/// region goes, not by polling.
package final class MappingBudget: @unchecked Sendable {
    // @unchecked: `outstanding` is guarded by `lock`.
    private let lock = ConditionLock()
    private var outstanding = 0
    package let limit: Int

    package init(limit: Int) { self.limit = max(1, limit) }

    /// Woken when a place is given back; a source's stop request wakes it too.
    package let changed = WakeSignal()

    /// Takes a place, waiting while `limit` regions are out; `false` when `isCancelled` turns
    /// true first. The wait is signalled: a place given back, or a wake-up of ``changed`` (which
    /// whoever cancels must send), ends it.
    package func take(unless isCancelled: () -> Bool) -> Bool {
        while true {
            let seen = changed.generation
            let taken: Bool = lock.withLock {
                guard outstanding < limit else { return false }
                outstanding += 1
                return true
            }
            if taken { return true }
            if isCancelled() { return false }
            changed.wait(after: seen)
        }
    }

    /// Gives a place back (a region does when it goes) and wakes a waiting reader.
    package func giveBack() {
        lock.withLock { outstanding -= 1 }
        changed.wake()
    }
}

extension RandomAccessFile {
    package static let pageSize = UInt64(max(1, sysconf(Int32(_SC_PAGESIZE))))

    /// A Boolean value that indicates whether both paths name the same existing file (the same
    /// device and inode: one path, a hard link or a symbolic link to the other).
    package static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Maps `count` bytes at `offset` read-only; `nil` when the file cannot be mapped (a pipe,
    /// or a filesystem without mmap), so the caller can read instead.
    /// - Parameters:
    ///   - budget: a place taken by the caller, given back when the region goes.
    ///   - populate: fault every page in now (`MAP_POPULATE`) rather than on first use.
    package func map(at offset: UInt64, count: Int, budget: MappingBudget?, populate: Bool = true) -> MappedRegion? {
        guard count > 0 else { return nil }
        let page = Self.pageSize
        let aligned = offset - offset % page
        let lead = Int(offset - aligned)
        let length = lead + count
        // The mapping keeps the file itself; the descriptor only has to stay open for mmap.
        let mapped = try? using("mapping") { fd in
            mmap(nil, length, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, off_t(aligned))
        }
        guard let pointer = mapped, pointer != MAP_FAILED else { return nil }
        return MappedRegion(mapping: pointer, mappedLength: length, base: UnsafeRawPointer(pointer + lead), count: count,
                            budget: budget)
    }
}
