

/// The atom tree of a movie file, read defensively.
///
/// Top-level atoms are walked by their headers alone; `moov`, `moof` and other small
/// containers are loaded and parsed, while media data is never read. Sizes are checked against
/// the parent and the file, nesting and atom counts are capped, and memory never exceeds what
/// the file actually holds, so hostile input produces a ``MovieFormatError``, never a crash.
package struct AtomTree: Sendable {
    /// The top-level atoms in file order.
    package var atoms: [AtomNode]
    /// The size of the file.
    package var fileSize: UInt64
    /// Where a tolerant walk stopped at a damaged header, if it did.
    package var damageOffset: UInt64?

    /// Containers whose children the reader parses.
    static let containerTypes: Set<FourCC> = ["moov", "trak", "mdia", "minf", "stbl", "dinf", "edts", "udta",
                                              "mvex", "moof", "traf", "mfra", "tref", "meta"]
    /// The largest top-level container the reader loads into memory.
    package static let maximumLoadedAtomSize: UInt64 = 1 << 30
    static let maximumDepth = 16
    static let maximumAtomCount = 1_000_000

    /// Reads the tree of `source`.
    /// - Throws: ``MovieFormatError`` for sizes that contradict the file or their parent, trees
    ///   too deep or too large, or a source that fails to read.
    package init(source: any MovieByteSource) throws {
        try self.init(source: source, stoppingAtDamage: false)
    }

    /// Reads the tree; with `stoppingAtDamage`, the walk ends quietly at the first top-level atom
    /// whose header is cut off or impossible (as a crash leaves the end of a file), recording
    /// where in ``damageOffset``.
    package init(source: any MovieByteSource, stoppingAtDamage: Bool) throws {
        fileSize = source.size
        atoms = []
        var offset: UInt64 = 0
        var count = 0
        while offset < fileSize {
            let headerBytes = try source.read(at: offset, count: 16)
            if stoppingAtDamage {
                var probe = ByteReader(headerBytes, context: "file")
                if headerBytes.count < 8 || (try? Self.readHeader(&probe, at: offset, available: fileSize - offset)) == nil {
                    damageOffset = offset
                    break
                }
            }
            guard headerBytes.count >= 8 else {
                throw MovieFormatError(code: .truncatedAtom, atom: nil,
                    message: "the file ends \(headerBytes.count) bytes after offset \(offset), in the middle of an atom header")
            }
            var header = ByteReader(headerBytes, context: "file")
            var (type, size, headerSize) = try Self.readHeader(&header, at: offset, available: fileSize - offset)
            if size == 0 { size = fileSize - offset }
            var node = AtomNode(type: type, offset: offset, size: size, headerSize: headerSize)
            let end = offset.addingReportingOverflow(size)
            node.isTruncated = end.overflow || end.partialValue > fileSize
            if Self.containerTypes.contains(type), !node.isTruncated {
                guard size <= Self.maximumLoadedAtomSize else {
                    throw MovieFormatError(code: .treeTooLarge, atom: type,
                        message: "'\(type)' atom at offset \(offset) is \(size) bytes, more than the reader loads (\(Self.maximumLoadedAtomSize))")
                }
                let bytes = try source.read(at: offset, count: Int(size))
                guard UInt64(bytes.count) == size else {
                    throw MovieFormatError(code: .truncatedAtom, atom: type, message: "'\(type)' atom at offset \(offset) could not be read whole")
                }
                node.children = try Self.parseChildren(of: type, bytes[headerSize...], baseOffset: offset + UInt64(headerSize),
                                                       depth: 1, count: &count)
            }
            if !Self.containerTypes.contains(type), !node.isTruncated, size <= 4096, size > UInt64(headerSize) {
                node.body = try source.read(at: offset + UInt64(headerSize), count: Int(size) - headerSize)[...]
            }
            atoms.append(node)
            count += 1
            guard count <= Self.maximumAtomCount else {
                throw MovieFormatError(code: .treeTooLarge, atom: type, message: "the file holds more than \(Self.maximumAtomCount) atoms")
            }
            if node.isTruncated { break }
            offset += size
        }
    }

    /// Reads an atom header: the size (widened for size 1) and type. Size 0 is returned as is.
    static func readHeader(_ r: inout ByteReader, at offset: UInt64, available: UInt64) throws(MovieFormatError)
        -> (FourCC, UInt64, Int)
    {
        let size32 = try r.readUInt32()
        let type = try r.readFourCC()
        switch size32 {
        case 0:
            return (type, 0, 8)
        case 1:
            guard r.remaining >= 8 else {
                throw MovieFormatError(code: .truncatedAtom, atom: type,
                    message: "'\(type)' atom at offset \(offset) has a 64-bit size that the data ends before")
            }
            let size = try r.readUInt64()
            guard size >= 16 else {
                throw MovieFormatError(code: .invalidAtomSize, atom: type,
                    message: "'\(type)' atom at offset \(offset) declares a 64-bit size of \(size), smaller than its 16-byte header")
            }
            return (type, size, 16)
        default:
            guard size32 >= 8 else {
                throw MovieFormatError(code: .invalidAtomSize, atom: type,
                    message: "'\(type)' atom at offset \(offset) declares a size of \(size32), smaller than its 8-byte header")
            }
            return (type, UInt64(size32), 8)
        }
    }

    static func parseChildren(of parent: FourCC, _ bytes: ArraySlice<UInt8>, baseOffset: UInt64, depth: Int,
                              count: inout Int) throws(MovieFormatError) -> [AtomNode] {
        guard depth <= maximumDepth else {
            throw MovieFormatError(code: .treeTooLarge, atom: parent,
                message: "atoms are nested more than \(maximumDepth) deep inside '\(parent)'")
        }
        var body = bytes
        // An ISO 'meta' is a full atom: skip its version and flags when present.
        if parent == "meta", body.count >= 12, body.prefix(4).allSatisfy({ $0 == 0 }) {
            body = body.dropFirst(4)
        }
        var children: [AtomNode] = []
        var index = body.startIndex
        while index < body.endIndex {
            let remaining = UInt64(body.endIndex - index)
            let childOffset = baseOffset + UInt64(index - bytes.startIndex)
            if remaining < 8 {
                // QuickTime allows a 32-bit zero terminator at the end of some containers.
                if remaining == 4, body[index..<body.endIndex].allSatisfy({ $0 == 0 }) { break }
                throw MovieFormatError(code: .invalidAtomSize, atom: parent,
                    message: "'\(parent)' atom ends with \(remaining) stray bytes at offset \(childOffset)")
            }
            var r = ByteReader(body[index..<body.endIndex], context: parent)
            var (type, size, headerSize) = try readHeader(&r, at: childOffset, available: remaining)
            if size == 0 { size = remaining }
            guard size <= remaining else {
                throw MovieFormatError(code: .invalidAtomSize, atom: type,
                    message: "'\(type)' atom at offset \(childOffset) declares \(size) bytes but its parent '\(parent)' has only \(remaining) left")
            }
            count += 1
            guard count <= maximumAtomCount else {
                throw MovieFormatError(code: .treeTooLarge, atom: parent, message: "the file holds more than \(maximumAtomCount) atoms")
            }
            let end = index + Int(size)
            var node = AtomNode(type: type, offset: childOffset, size: size, headerSize: headerSize)
            node.body = body[(index + headerSize)..<end]
            if containerTypes.contains(type) {
                node.children = try parseChildren(of: type, body[(index + headerSize)..<end],
                                                  baseOffset: childOffset + UInt64(headerSize), depth: depth + 1, count: &count)
            }
            children.append(node)
            index = end
        }
        return children
    }

    /// The first top-level atom of a type.
    package func atom(_ type: FourCC) -> AtomNode? { atoms.first { $0.type == type } }
}
