import MovieContainer

/// Adds the transformative properties of an orientation to a HEIF file's primary image: `irot`
/// (counter-clockwise quarter turns) and then `imir` (axis 1: left and right swapped), applied in
/// the order listed (ISO/IEC 23008-12:2022), the coded pixels left as they are.
///
/// The two boxes go at the end of `ipco` and are associated, as essential, with the primary
/// item in `ipma`; `iprp` and `meta` grow by their size, and every `iloc` offset into the file
/// after the `meta` box moves by as much.
enum HEIFOrientationProperties {
    struct Malformed: Error { var reason: String }

    /// `file` with `orientation`'s properties on its primary image; the file itself for `.up`.
    static func adding(_ orientation: VideoOrientation, to file: [UInt8]) throws(Malformed) -> [UInt8] {
        var properties: [[UInt8]] = []
        let quarterTurns = (4 - orientation.rotationAngle / 90) % 4
        if quarterTurns != 0 { properties.append(box("irot", [UInt8(quarterTurns)])) }
        if orientation.isMirrored { properties.append(box("imir", [1])) }
        guard !properties.isEmpty else { return file }
        let meta = try child("meta", in: file, from: 0, to: file.count)
        var output = file
        let added = properties.reduce(0) { $0 + $1.count }
        // meta is a full box: its children start after version and flags.
        let iprp = try child("iprp", in: file, from: meta.start + 12, to: meta.end)
        let ipco = try child("ipco", in: file, from: iprp.start + 8, to: iprp.end)
        let ipma = try child("ipma", in: file, from: iprp.start + 8, to: iprp.end)
        let primary = try primaryItem(file, meta: meta)
        let firstIndex = try count(in: file, box: ipco) + 1
        let newIPMA = try associate(file, ipma: ipma, item: primary, indices: Array(firstIndex..<(firstIndex + properties.count)))
        // Rebuild iprp with the longer ipco and ipma, in their places.
        var iprpBody: [UInt8] = []
        var cursor = iprp.start + 8
        while cursor < iprp.end {
            let size = Int(try read32(file, cursor))
            guard size >= 8, cursor + size <= iprp.end else { throw Malformed(reason: "a box in iprp runs past its end") }
            if cursor == ipco.start {
                iprpBody += resized(Array(file[cursor..<(cursor + size)]) + properties.flatMap { $0 })
            } else if cursor == ipma.start {
                iprpBody += newIPMA
            } else {
                iprpBody += file[cursor..<(cursor + size)]
            }
            cursor += size
        }
        let newIPRP = resized(Array(file[iprp.start..<(iprp.start + 8)]) + iprpBody)
        let growth = newIPRP.count - (iprp.end - iprp.start)
        precondition(growth == added + (newIPMA.count - (ipma.end - ipma.start)))
        output.replaceSubrange(iprp.start..<iprp.end, with: newIPRP)
        write32(&output, meta.start, UInt32(meta.end - meta.start + growth))
        try moveOffsets(&output, meta: (meta.start, meta.end + growth), after: meta.end, by: growth)
        return output
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4) + Array(type.utf8) + payload
        write32(&bytes, 0, UInt32(bytes.count))
        return bytes
    }

    private static func resized(_ box: [UInt8]) -> [UInt8] {
        var box = box
        write32(&box, 0, UInt32(box.count))
        return box
    }

    /// The first box of `type` among the boxes in `start..<end`.
    private static func child(_ type: String, in file: [UInt8], from start: Int, to end: Int) throws(Malformed) -> (start: Int, end: Int) {
        var cursor = start
        while cursor + 8 <= end {
            let size = Int(try read32(file, cursor))
            guard size >= 8, cursor + size <= end else { throw Malformed(reason: "a box runs past its parent at \(cursor)") }
            if String(decoding: file[(cursor + 4)..<(cursor + 8)], as: UTF8.self) == type { return (cursor, cursor + size) }
            cursor += size
        }
        throw Malformed(reason: "no \(type) box")
    }

    /// The primary item's ID, from `pitm`.
    private static func primaryItem(_ file: [UInt8], meta: (start: Int, end: Int)) throws(Malformed) -> UInt32 {
        let pitm = try child("pitm", in: file, from: meta.start + 12, to: meta.end)
        return file[pitm.start + 8] == 0 ? UInt32(try read16(file, pitm.start + 12)) : try read32(file, pitm.start + 12)
    }

    /// How many property boxes `ipco` holds.
    private static func count(in file: [UInt8], box: (start: Int, end: Int)) throws(Malformed) -> Int {
        var cursor = box.start + 8, found = 0
        while cursor < box.end {
            cursor += Int(try read32(file, cursor))
            found += 1
        }
        return found
    }

    /// `ipma` with essential associations to `indices` added to `item`'s entry.
    private static func associate(_ file: [UInt8], ipma: (start: Int, end: Int), item: UInt32, indices: [Int]) throws(Malformed) -> [UInt8] {
        let version = file[ipma.start + 8], wide = file[ipma.start + 11] & 1 == 1
        var output = Array(file[ipma.start..<(ipma.start + 16)])
        let entries = Int(try read32(file, ipma.start + 12))
        var cursor = ipma.start + 16
        var found = false
        for _ in 0..<entries {
            let idSize = version == 0 ? 2 : 4
            let id = idSize == 2 ? UInt32(try read16(file, cursor)) : try read32(file, cursor)
            let associations = Int(file[cursor + idSize])
            let length = idSize + 1 + associations * (wide ? 2 : 1)
            guard cursor + length <= ipma.end else { throw Malformed(reason: "ipma runs past its end") }
            var entry = Array(file[cursor..<(cursor + length)])
            if id == item {
                found = true
                entry[idSize] = UInt8(associations + indices.count)
                for index in indices {
                    entry += wide ? [UInt8(0x80 | (index >> 8)), UInt8(index & 0xFF)] : [UInt8(0x80 | index)]
                }
            }
            output += entry
            cursor += length
        }
        guard found else { throw Malformed(reason: "the primary item has no ipma entry") }
        return resized(output)
    }

    /// Adds `delta` to every `iloc` offset (file-based construction) at or past `after`.
    private static func moveOffsets(_ file: inout [UInt8], meta: (start: Int, end: Int), after: Int, by delta: Int) throws(Malformed) {
        let iloc = try child("iloc", in: file, from: meta.start + 12, to: meta.end)
        let version = file[iloc.start + 8]
        let offsetSize = Int(file[iloc.start + 12] >> 4), lengthSize = Int(file[iloc.start + 12] & 15)
        let baseSize = Int(file[iloc.start + 13] >> 4), indexSize = version >= 1 ? Int(file[iloc.start + 13] & 15) : 0
        var cursor = iloc.start + 14
        let items = version < 2 ? Int(try read16(file, cursor)) : Int(try read32(file, cursor))
        cursor += version < 2 ? 2 : 4
        for _ in 0..<items {
            cursor += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 {
                method = Int(try read16(file, cursor) & 15)
                cursor += 2
            }
            cursor += 2  // data reference index
            let baseAt = cursor
            let base = try readSized(file, cursor, baseSize)
            cursor += baseSize
            let extents = Int(try read16(file, cursor))
            cursor += 2
            if method == 0, baseSize > 0, base >= after { writeSized(&file, baseAt, baseSize, base + delta) }
            for _ in 0..<extents {
                cursor += indexSize
                let offset = try readSized(file, cursor, offsetSize)
                if method == 0, baseSize == 0, offset >= after { writeSized(&file, cursor, offsetSize, offset + delta) }
                cursor += offsetSize + lengthSize
            }
        }
    }

    private static func read16(_ bytes: [UInt8], _ at: Int) throws(Malformed) -> UInt16 {
        guard at + 2 <= bytes.count else { throw Malformed(reason: "truncated at \(at)") }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    private static func read32(_ bytes: [UInt8], _ at: Int) throws(Malformed) -> UInt32 {
        guard at + 4 <= bytes.count else { throw Malformed(reason: "truncated at \(at)") }
        return bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func readSized(_ bytes: [UInt8], _ at: Int, _ size: Int) throws(Malformed) -> Int {
        guard at + size <= bytes.count else { throw Malformed(reason: "truncated at \(at)") }
        return bytes[at..<(at + size)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func writeSized(_ bytes: inout [UInt8], _ at: Int, _ size: Int, _ value: Int) {
        for i in 0..<size { bytes[at + i] = UInt8((value >> (8 * (size - 1 - i))) & 0xFF) }
    }

    private static func write32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
        writeSized(&bytes, at, 4, Int(value))
    }
}
