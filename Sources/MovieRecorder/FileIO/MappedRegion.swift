#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Part of a file mapped read-only into memory, its pages faulted in when mapped
/// (`MAP_POPULATE`), unmapped when the last reference goes.
///
/// Reading a mapping past the end of the file raises SIGBUS, so a region is only made for bytes
/// the file had when it was mapped; a file cut shorter by another process while a region is in
/// use is the one case this cannot guard against (as with any mapped reader, x264's included).
final class MappedRegion: @unchecked Sendable {
    // @unchecked: the mapping is read-only and never changes until deinit.
    private let mapping: UnsafeMutableRawPointer
    private let mappedLength: Int
    /// The first requested byte.
    let base: UnsafeRawPointer
    let count: Int
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

/// A limit on how many regions are mapped at once, like a buffer pool's size: the mapped pages
/// count towards the process's resident memory.
final class MappingBudget: Sendable {
    private let outstanding = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Takes one place if one is free.
    func take() -> Bool {
        var current = outstanding.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = outstanding.compareExchange(expected: current, desired: current + 1,
                                                                    ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a place back (a region does when it goes).
    func giveBack() { outstanding.subtract(1, ordering: .releasing) }
}

extension RandomAccessFile {
    /// Maps `count` bytes at `offset` read-only; `nil` when the file cannot be mapped (a pipe,
    /// or a filesystem without mmap), so the caller can read instead.
    /// - Parameter budget: a place taken by the caller, given back when the region goes.
    func map(at offset: UInt64, count: Int, budget: MappingBudget?) -> MappedRegion? {
        guard count > 0, let fd = try? rawDescriptor() else { return nil }
        let page = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let aligned = offset - offset % page
        let lead = Int(offset - aligned)
        let length = lead + count
        guard let pointer = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off_t(aligned)),
              pointer != MAP_FAILED else { return nil }
        return MappedRegion(mapping: pointer, mappedLength: length, base: UnsafeRawPointer(pointer + lead), count: count,
                            budget: budget)
    }
}
