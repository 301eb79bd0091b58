/// Where a writer's sample tables move their entries once they are final: blocks in scratch
/// storage, which the sink is asked for when the first block fills.
///
/// Each table keeps at most one block in memory, so a recording's memory does not grow with
/// its length; the movie atom copies the blocks back in large reads (``MovieAtomOutput``).
/// Blocks are placed one after another and never reused: a table that gives back entries
/// (audio cut at the end) leaves a few bytes of scratch storage unused.
final class SampleTableSpill {
    /// The bytes a table holds in memory before it moves them out.
    let blockSize: Int
    private let sink: any MovieByteSink
    @exclusivity(unchecked) private var storage: (any MovieScratchStorage)?
    @exclusivity(unchecked) private var end: UInt64 = 0

    init(sink: any MovieByteSink, blockSize: Int) {
        self.sink = sink
        self.blockSize = blockSize
    }

    /// Stores a block of `table`'s entries and returns where it went.
    /// - Throws: ``MovieWriterError`` (`writeFailed`) naming the table and the step.
    func store(_ block: [UInt8], of table: String) throws -> UInt64 {
        let storage = try self.storage(for: table)
        let offset = end
        do {
            try block.withUnsafeBytes { try storage.write($0, at: offset) }
        } catch {
            throw MovieWriterError(.writeFailed,
                "\(table): moving \(block.count) bytes of final entries to scratch storage at byte \(offset)", underlying: error)
        }
        end += UInt64(block.count)
        return offset
    }

    /// Reads a stored block (or part of one) of `table` back into `buffer`.
    /// - Throws: ``MovieWriterError`` (`writeFailed`) naming the table and the step.
    func load(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer, of table: String) throws {
        guard let storage else {
            throw MovieWriterError(.invalidState, "\(table): reading entries back from scratch storage that was never created")
        }
        let count: Int
        do {
            count = try storage.read(at: offset, into: buffer)
        } catch {
            throw MovieWriterError(.writeFailed,
                "\(table): reading \(buffer.count) bytes back from scratch storage at byte \(offset)", underlying: error)
        }
        guard count == buffer.count else {
            throw MovieWriterError(.writeFailed,
                "\(table): scratch storage returned \(count) of \(buffer.count) bytes at byte \(offset); it was cut short")
        }
    }

    /// Releases the scratch storage. Its contents are not needed once the movie atom is written.
    func close() {
        // A failure to close scratch storage loses nothing: the movie atom is already written.
        try? storage?.close()
        storage = nil
    }

    private func storage(for table: String) throws -> any MovieScratchStorage {
        if let storage { return storage }
        let created: (any MovieScratchStorage)?
        do {
            created = try sink.makeScratchStorage()
        } catch {
            throw MovieWriterError(.writeFailed, "\(table): creating scratch storage for the sample tables", underlying: error)
        }
        let storage = created ?? InMemoryScratchStorage()
        self.storage = storage
        return storage
    }
}

/// A sample table's fixed-size entries, encoded as the atom stores them (big-endian): full
/// blocks in a ``SampleTableSpill``, the newest entries in memory.
struct SpilledTable {
    /// What the table is, for messages: "track 1 sample sizes ('stsz')".
    let name: String
    let entrySize: Int
    private(set) var count = 0
    /// Where the full blocks are, in order.
    private var blocks: [UInt64] = []
    /// The entries after the blocks.
    private var tail: [UInt8] = []

    init(_ name: String, entrySize: Int) {
        self.name = name
        self.entrySize = entrySize
    }

    /// The size of the entries, in bytes.
    var byteCount: Int { count * entrySize }

    private func blockBytes(_ spill: SampleTableSpill) -> Int { max(1, spill.blockSize / entrySize) * entrySize }

    mutating func append(_ value: UInt32, spill: SampleTableSpill) throws {
        reserveRoom(spill)
        appendBigEndian(value)
        try entryAppended(spill)
    }

    mutating func append(_ first: UInt32, _ second: UInt32, spill: SampleTableSpill) throws {
        reserveRoom(spill)
        appendBigEndian(first)
        appendBigEndian(second)
        try entryAppended(spill)
    }

    mutating func append(_ first: UInt32, _ second: UInt32, _ third: UInt32, spill: SampleTableSpill) throws {
        reserveRoom(spill)
        appendBigEndian(first)
        appendBigEndian(second)
        appendBigEndian(third)
        try entryAppended(spill)
    }

    mutating func append(_ value: UInt64, spill: SampleTableSpill) throws {
        reserveRoom(spill)
        appendBigEndian(UInt32(truncatingIfNeeded: value >> 32))
        appendBigEndian(UInt32(truncatingIfNeeded: value))
        try entryAppended(spill)
    }

    /// Grows the in-memory block by doubling, but never past one block.
    private mutating func reserveRoom(_ spill: SampleTableSpill) {
        if tail.count + entrySize > tail.capacity {
            tail.reserveCapacity(min(blockBytes(spill), max(16 * entrySize, tail.capacity * 2)))
        }
    }

    private mutating func appendBigEndian(_ value: UInt32) {
        tail.append(UInt8(truncatingIfNeeded: value >> 24))
        tail.append(UInt8(truncatingIfNeeded: value >> 16))
        tail.append(UInt8(truncatingIfNeeded: value >> 8))
        tail.append(UInt8(truncatingIfNeeded: value))
    }

    private mutating func entryAppended(_ spill: SampleTableSpill) throws {
        count += 1
        if tail.count >= blockBytes(spill) {
            blocks.append(try spill.store(tail, of: name))
            tail.removeAll(keepingCapacity: true)
        }
    }

    /// Removes the last entry and returns its bytes, reading its block back when it was moved.
    mutating func removeLast(spill: SampleTableSpill) throws -> [UInt8] {
        precondition(count > 0, "removing an entry from the empty table \(name)")
        if tail.isEmpty {
            let offset = blocks.removeLast()
            tail = [UInt8](repeating: 0, count: blockBytes(spill))
            try tail.withUnsafeMutableBytes { try spill.load(at: offset, into: $0, of: name) }
        }
        let entry = Array(tail.suffix(entrySize))
        tail.removeLast(entrySize)
        count -= 1
        return entry
    }

    /// The last entry's bytes, or `nil` when the table is empty.
    func last(spill: SampleTableSpill) throws -> [UInt8]? {
        guard count > 0 else { return nil }
        if !tail.isEmpty { return Array(tail.suffix(entrySize)) }
        var entry = [UInt8](repeating: 0, count: entrySize)
        let offset = blocks.last! + UInt64(blockBytes(spill) - entrySize)
        try entry.withUnsafeMutableBytes { try spill.load(at: offset, into: $0, of: name) }
        return entry
    }

    /// Copies every entry, in order, to `output`: the moved blocks, then those in memory.
    func write(to output: MovieAtomOutput, spill: SampleTableSpill) throws {
        let size = blockBytes(spill)
        for offset in blocks {
            try output.append(count: size) { try spill.load(at: offset, into: $0, of: name) }
        }
        try tail.withUnsafeBytes { try output.append($0) }
    }
}

extension [UInt8] {
    /// The big-endian 32-bit value at `index`.
    func bigEndianUInt32(at index: Int) -> UInt32 {
        UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8 | UInt32(self[index + 3])
    }
}

/// Runs of equal values, the shape of `stts` and `ctts` (count, value): the finished runs in a
/// ``SpilledTable``, the open one in memory.
struct RunLengthTable {
    private(set) var closed: SpilledTable
    /// The last run, which the next equal value extends.
    private(set) var open: (count: UInt32, value: UInt32)?

    init(_ name: String) { closed = SpilledTable(name, entrySize: 8) }

    var entryCount: Int { closed.count + (open == nil ? 0 : 1) }
    var byteCount: Int { entryCount * 8 }

    /// Appends `count` samples of `value`; a run holds at most 2^32 − 1.
    mutating func append(_ value: UInt32, count: UInt64 = 1, spill: SampleTableSpill) throws {
        var left = count
        while left > 0 {
            if let last = open, last.value == value, last.count < UInt32.max {
                let take = min(left, UInt64(UInt32.max - last.count))
                open!.count += UInt32(take)
                left -= take
            } else {
                if let last = open { try closed.append(last.count, last.value, spill: spill) }
                let take = min(left, UInt64(UInt32.max))
                open = (UInt32(take), value)
                left -= take
            }
        }
    }

    /// Copies the runs as `(count, value)` entries to `output`.
    func write(to output: MovieAtomOutput, spill: SampleTableSpill) throws {
        try closed.write(to: output, spill: spill)
        if let open { try output.append(bigEndian: [open.count, open.value]) }
    }
}

/// The `stsc` runs: chunks holding the same number of samples, from a 1-based first chunk. The
/// finished runs are in a ``SpilledTable``, the open one in memory.
struct SampleToChunkTable {
    private(set) var closed: SpilledTable
    /// The last run, which the next chunk of the same sample count extends.
    var open: SampleToChunkAtom.Entry?

    init(_ name: String) { closed = SpilledTable(name, entrySize: 12) }

    var entryCount: Int { closed.count + (open == nil ? 0 : 1) }
    var byteCount: Int { entryCount * 12 }

    /// Enters chunk number `chunk`, holding `sampleCount` samples.
    mutating func addChunk(_ chunk: UInt32, sampleCount: UInt32, spill: SampleTableSpill) throws {
        guard open?.samplesPerChunk != sampleCount else { return }
        try closeOpenRun(spill: spill)
        open = .init(firstChunk: chunk, samplesPerChunk: sampleCount)
    }

    /// Moves the open run to the finished ones.
    mutating func closeOpenRun(spill: SampleTableSpill) throws {
        guard let run = open else { return }
        try closed.append(run.firstChunk, run.samplesPerChunk, run.sampleDescriptionID, spill: spill)
        open = nil
    }

    /// The finished run before the open one.
    func previousRun(spill: SampleTableSpill) throws -> SampleToChunkAtom.Entry? {
        try closed.last(spill: spill).map(Self.entry)
    }

    /// Makes the finished run before the open one the open one again (the open one is dropped).
    mutating func reopenPreviousRun(spill: SampleTableSpill) throws {
        open = closed.count > 0 ? Self.entry(try closed.removeLast(spill: spill)) : nil
    }

    private static func entry(_ bytes: [UInt8]) -> SampleToChunkAtom.Entry {
        .init(firstChunk: bytes.bigEndianUInt32(at: 0), samplesPerChunk: bytes.bigEndianUInt32(at: 4),
              sampleDescriptionID: bytes.bigEndianUInt32(at: 8))
    }

    func write(to output: MovieAtomOutput, spill: SampleTableSpill) throws {
        try closed.write(to: output, spill: spill)
        if let open { try output.append(bigEndian: [open.firstChunk, open.samplesPerChunk, open.sampleDescriptionID]) }
    }
}

/// Chunk offsets, ready as `co64` entries and, while every offset fits 32 bits, as `stco`
/// entries too, so finishing the movie only copies whichever applies.
struct ChunkOffsetTable {
    private(set) var offsets32: SpilledTable
    private(set) var offsets64: SpilledTable
    /// The last (and largest) offset.
    private(set) var last: UInt64?

    init(track: UInt32) {
        offsets32 = SpilledTable("track \(track) chunk offsets ('stco')", entrySize: 4)
        offsets64 = SpilledTable("track \(track) chunk offsets ('co64')", entrySize: 8)
    }

    var count: Int { offsets64.count }
    /// Whether the table must be `co64`: an offset is past 2^32 − 1.
    var needsLargeOffsets: Bool { (last ?? 0) > UInt64(UInt32.max) }

    /// Appends an offset; offsets increase.
    mutating func append(_ offset: UInt64, spill: SampleTableSpill) throws {
        if offset <= UInt64(UInt32.max) { try offsets32.append(UInt32(offset), spill: spill) }
        try offsets64.append(offset, spill: spill)
        last = offset
    }

    mutating func removeLast(spill: SampleTableSpill) throws {
        if offsets32.count == offsets64.count { _ = try offsets32.removeLast(spill: spill) }
        _ = try offsets64.removeLast(spill: spill)
        last = try offsets64.last(spill: spill).map { UInt64($0.bigEndianUInt32(at: 0)) << 32 | UInt64($0.bigEndianUInt32(at: 4)) }
    }
}

/// Writes a movie atom whose tables wait in scratch storage: its bytes in order, the tables'
/// entries copied in at their external spans, gathered into large writes to the sink.
final class MovieAtomOutput {
    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0
    /// Where the buffered bytes go.
    private var position: UInt64
    private let store: (UnsafeRawBufferPointer, UInt64) throws -> Void
    /// The number of bytes appended so far.
    private(set) var count = 0

    /// - Parameters:
    ///   - capacity: the buffer size: the largest single write, and at least a table block.
    ///   - offset: where the first byte goes.
    ///   - store: writes bytes at an offset of the sink.
    init(capacity: Int, at offset: UInt64, store: @escaping (UnsafeRawBufferPointer, UInt64) throws -> Void) {
        buffer = .allocate(byteCount: max(1, capacity), alignment: 16)
        position = offset
        self.store = store
    }

    deinit { buffer.deallocate() }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            if used == buffer.count { try flush() }
            let n = min(bytes.count - done, buffer.count - used)
            UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + n]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: bytes[done..<done + n]))
            used += n
            done += n
        }
        count += bytes.count
    }

    func append(bigEndian values: [UInt32]) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 4)
        for v in values { bytes += [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                                    UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Appends `count` bytes that `fill` writes straight into the buffer.
    func append(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        precondition(count <= buffer.count, "a table block of \(count) bytes exceeds the \(buffer.count)-byte output buffer")
        if count > buffer.count - used { try flush() }
        try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + count]))
        used += count
        self.count += count
    }

    /// Writes what is buffered.
    func flush() throws {
        guard used > 0 else { return }
        try store(UnsafeRawBufferPointer(rebasing: buffer[0..<used]), position)
        position += UInt64(used)
        used = 0
    }
}
