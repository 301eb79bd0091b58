// Movie-level metadata as QuickTime stores it (QuickTime File Format, "Metadata atoms and
// types"): `moov/meta` holds a handler (`hdlr`, subtype `mdta`), a table of keys (`keys`) and a
// list of items (`ilst`) whose atom types are 1-based indexes into that table. Each item holds
// its value in a `data` atom tagged with a well-known type.
//
// Apple writes `meta` as a plain atom; ISO files (and FFmpeg, even in .mov) write it as a full
// atom with four bytes of version and flags. This library writes Apple's layout and reads both.

/// `meta`: the movie's metadata (QuickTime File Format, "Metadata atom"): a handler of type
/// `mdta`, the keys and the items. Written as Apple writes it, a plain atom holding `hdlr`,
/// `keys` and `ilst`; read also as a full atom (ISO, FFmpeg) with version and flags first.
///
/// Items that share a key are written under one key, in one item atom, in their order; keys
/// appear in the order of their first item.
package struct MetadataAtom: QuickTimeAtom {
    package static let type: FourCC = "meta"
    package var items: [MetadataItem]

    package init(items: [MetadataItem]) { self.items = items }

    /// The `hdlr` inside `meta`, as Apple and FFmpeg write it: component type 0, subtype
    /// `mdta`, an empty name.
    package static let handler = HandlerAtom(componentType: FourCC(rawValue: 0), componentSubtype: "mdta", name: "")

    /// The distinct keys, in the order of their first item.
    package var keys: MetadataKeysAtom {
        var seen = Set<String>()
        return MetadataKeysAtom(keys: items.compactMap { seen.insert($0.key).inserted ? MetadataKeysAtom.Key(mdta: $0.key) : nil })
    }

    /// One item atom per key, named by the key's 1-based index and holding the key's values.
    package var itemList: MetadataItemListAtom {
        var indexes: [String: Int] = [:]
        var list: [MetadataItemListAtom.Item] = []
        for item in items {
            if let index = indexes[item.key] {
                list[index].values.append(MetadataValueAtom(item.value))
            } else {
                indexes[item.key] = list.count
                list.append(.init(keyIndex: UInt32(list.count + 1), values: [MetadataValueAtom(item.value)]))
            }
        }
        return MetadataItemListAtom(items: list)
    }

    package func writeBody(to w: inout ByteWriter) {
        // The enclosing writeAtom rejects a `meta` past 4 GiB, so no child's size can overflow.
        w.writeChildAtom(Self.handler)
        w.writeChildAtom(keys)
        w.writeChildAtom(itemList)
    }

    /// Reads the items. Keys outside the `mdta` namespace, and atoms other than `hdlr`, `keys`
    /// and `ilst`, are skipped.
    /// - Throws: ``MovieFormatError`` when a size does not fit, `hdlr` is missing or not
    ///   `mdta`, or an item names a key that `keys` does not hold.
    package init(body r: inout ByteReader) throws(MovieFormatError) {
        // A full atom's version and flags are four zero bytes; a first child would start so only
        // with size 0 ("to the end"), which no writer uses there.
        if r.remaining >= 12, r.rest.prefix(4).allSatisfy({ $0 == 0 }) { try r.skip(4) }
        var handler: HandlerAtom?
        var keys: MetadataKeysAtom?
        var itemList: MetadataItemListAtom?
        for var child in try readChildAtoms(&r, in: Self.type) {
            switch child.type {
            case HandlerAtom.type: handler = try HandlerAtom(body: &child.body)
            case MetadataKeysAtom.type: keys = try MetadataKeysAtom(body: &child.body)
            case MetadataItemListAtom.type: itemList = try MetadataItemListAtom(body: &child.body)
            default: continue
            }
        }
        guard let handler else { throw .missingAtom("hdlr", in: "the metadata atom ('meta')") }
        guard handler.componentSubtype == "mdta" else {
            throw .invalidValue("hdlr", "the metadata handler is '\(handler.componentSubtype)', not 'mdta', so 'keys' and 'ilst' do not apply")
        }
        items = []
        guard let itemList, !itemList.items.isEmpty else { return }
        guard let keys else { throw .missingAtom("keys", in: "the metadata atom ('meta')") }
        for item in itemList.items {
            guard item.keyIndex >= 1, item.keyIndex <= UInt32(keys.keys.count) else {
                throw .invalidValue("ilst", "an item names key \(item.keyIndex) but 'keys' holds \(keys.keys.count) (indexes start at 1)")
            }
            let key = keys.keys[Int(item.keyIndex) - 1]
            guard key.namespace == "mdta" else { continue }
            for value in item.values { items.append(MetadataItem(key: key.name, value: value.value)) }
        }
    }
}

/// `keys`: the metadata item keys (QuickTime File Format, "Metadata item keys atom"), a full
/// atom holding a count and, for each key, its size, namespace and bytes. Items name a key by
/// its 1-based index in this list.
package struct MetadataKeysAtom: QuickTimeAtom {
    package static let type: FourCC = "keys"

    /// One key.
    package struct Key: Hashable, Sendable {
        /// The naming scheme: `mdta` for reverse-DNS keys such as `com.apple.quicktime.make`.
        package var namespace: FourCC
        /// The key's bytes: for `mdta`, UTF-8 text without a terminator.
        package var value: [UInt8]

        package init(namespace: FourCC, value: [UInt8]) {
            self.namespace = namespace
            self.value = value
        }

        /// A key in the `mdta` namespace.
        package init(mdta name: String) { self.init(namespace: "mdta", value: Array(name.utf8)) }

        /// The key as text.
        package var name: String { String(decoding: value, as: UTF8.self) }
    }

    package var keys: [Key]

    package init(keys: [Key]) { self.keys = keys }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(UInt32(keys.count))
        for key in keys {
            w.write(UInt32(truncatingIfNeeded: 8 + key.value.count))  // key_size counts itself and the namespace
            w.write(key.namespace)
            w.write(contentsOf: key.value)
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 8)
        keys = []
        keys.reserveCapacity(Int(count))
        for index in 0..<count {
            let size = try r.readUInt32()
            let namespace = try r.readFourCC()
            guard size >= 8, Int(size - 8) <= r.remaining else {
                throw .invalidValue("keys", "key \(index + 1) declares \(size) bytes, which do not fit the \(r.remaining + 8) left")
            }
            keys.append(Key(namespace: namespace, value: try r.readBytes(Int(size - 8))))
        }
    }
}

/// `ilst`: the metadata items (QuickTime File Format, "Metadata item list atom"). Each item
/// is an atom whose type is the 1-based index of its key in `keys`, holding one or more `data`
/// atoms; other atoms in an item (`itif`, `name`) are skipped when read.
package struct MetadataItemListAtom: QuickTimeAtom {
    package static let type: FourCC = "ilst"

    /// One item atom.
    package struct Item: Hashable, Sendable {
        /// The key's 1-based index in `keys`, stored as the item atom's type.
        package var keyIndex: UInt32
        /// The item's values, in order.
        package var values: [MetadataValueAtom]

        package init(keyIndex: UInt32, values: [MetadataValueAtom]) {
            self.keyIndex = keyIndex
            self.values = values
        }
    }

    package var items: [Item]

    package init(items: [Item]) { self.items = items }

    package func writeBody(to w: inout ByteWriter) {
        for item in items {
            let start = w.count
            w.write(UInt32(0))
            w.write(item.keyIndex)
            for value in item.values { w.writeChildAtom(value) }
            w.patch(UInt32(truncatingIfNeeded: w.count - start), at: start)
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        items = []
        for var item in try readChildAtoms(&r, in: Self.type) {
            var values: [MetadataValueAtom] = []
            for var child in try readChildAtoms(&item.body, in: Self.type) where child.type == MetadataValueAtom.type {
                values.append(try MetadataValueAtom(body: &child.body))
            }
            items.append(Item(keyIndex: item.type.rawValue, values: values))
        }
    }
}

/// `data`: one metadata value (QuickTime File Format, "Data atom" and "Well-known types"): a
/// type indicator (0 in the first byte for the well-known set, then the type), a locale (0 for
/// every locale) and the value's bytes.
package struct MetadataValueAtom: QuickTimeAtom {
    package static let type: FourCC = "data"
    package var value: MetadataItem.Value
    /// The country (high 16 bits) and language (low 16 bits); 0 is the default.
    package var locale: UInt32

    package init(_ value: MetadataItem.Value, locale: UInt32 = 0) {
        self.value = value
        self.locale = locale
    }

    /// Well-known type codes this library writes or reads.
    enum WellKnownType {
        static let utf8: UInt32 = 1
        static let signedInteger: UInt32 = 21
        static let unsignedInteger: UInt32 = 22
        static let float32: UInt32 = 23
        static let float64: UInt32 = 24
        static let int8: UInt32 = 65, int16: UInt32 = 66, int32: UInt32 = 67, int64: UInt32 = 74
        static let uint8: UInt32 = 75, uint16: UInt32 = 76, uint32: UInt32 = 77, uint64: UInt32 = 78
    }

    /// The type indicator and value bytes `value` is written as.
    var encodedValue: (typeIndicator: UInt32, bytes: [UInt8]) {
        var w = ByteWriter(capacity: 16)
        switch value {
        case .string(let text):
            return (WellKnownType.utf8, Array(text.utf8))
        case .int(let n):
            if let byte = Int8(exactly: n) {
                w.write(UInt8(bitPattern: byte))
            } else if let short = Int16(exactly: n) {
                w.write(short)
            } else if let word = Int32(exactly: n) {
                w.write(word)
            } else {
                w.write(n)
                return (WellKnownType.int64, w.bytes)
            }
            return (WellKnownType.signedInteger, w.bytes)
        case .double(let x):
            if Double(Float(x)) == x {
                w.write(Float(x).bitPattern)
                return (WellKnownType.float32, w.bytes)
            }
            w.write(x.bitPattern)
            return (WellKnownType.float64, w.bytes)
        case .other(let typeIndicator, let bytes):
            return (typeIndicator, bytes)
        }
    }

    package func writeBody(to w: inout ByteWriter) {
        let (typeIndicator, bytes) = encodedValue
        w.write(typeIndicator)
        w.write(locale)
        w.write(contentsOf: bytes)
    }

    /// Reads a value. UTF-8 text, integers of types 21, 22 and 65–78 and floats of types 23
    /// and 24 become ``MetadataItem/Value/string(_:)``, ``MetadataItem/Value/int(_:)`` and
    /// ``MetadataItem/Value/double(_:)``; anything else (or a width its type does not allow)
    /// is kept as ``MetadataItem/Value/other(typeIndicator:bytes:)``.
    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let typeIndicator = try r.readUInt32()
        locale = try r.readUInt32()
        let bytes = Array(r.rest)
        try r.skip(bytes.count)
        value = Self.decode(typeIndicator: typeIndicator, bytes) ?? .other(typeIndicator: typeIndicator, bytes: bytes)
    }

    static func decode(typeIndicator: UInt32, _ bytes: [UInt8]) -> MetadataItem.Value? {
        // Big-endian bytes as an unsigned number, and sign-extended from their width.
        var unsigned: UInt64 = 0
        for byte in bytes.prefix(8) { unsigned = unsigned << 8 | UInt64(byte) }
        let shift = UInt64(64 - 8 * min(8, max(1, bytes.count)))
        let signed = Int64(bitPattern: unsigned << shift) >> shift
        let count = bytes.count
        switch typeIndicator {
        case WellKnownType.utf8:
            return String(validating: bytes, as: UTF8.self).map { .string($0) }
        case WellKnownType.signedInteger where [1, 2, 3, 4, 8].contains(count),
             WellKnownType.int8 where count == 1, WellKnownType.int16 where count == 2,
             WellKnownType.int32 where count == 4, WellKnownType.int64 where count == 8:
            return .int(signed)
        case WellKnownType.unsignedInteger where [1, 2, 3, 4, 8].contains(count),
             WellKnownType.uint8 where count == 1, WellKnownType.uint16 where count == 2,
             WellKnownType.uint32 where count == 4, WellKnownType.uint64 where count == 8:
            return Int64(exactly: unsigned).map { .int($0) }
        case WellKnownType.float32 where count == 4:
            return .double(Double(Float(bitPattern: UInt32(unsigned))))
        case WellKnownType.float64 where count == 8:
            return .double(Double(bitPattern: unsigned))
        default:
            return nil
        }
    }
}

extension ByteWriter {
    /// Writes an atom inside another atom's body. The outer atom's size check covers it: a
    /// child is never larger than its parent.
    mutating func writeChildAtom<A: QuickTimeAtom>(_ atom: A) {
        let start = count
        write(UInt32(0))
        write(A.type)
        atom.writeBody(to: &self)
        patch(UInt32(truncatingIfNeeded: count - start), at: start)
    }
}

/// Reads the atoms that fill the rest of `r`: each one's type and a reader over its body.
/// A size of 0 runs to the end; four zero bytes at the end are QuickTime's terminator.
/// - Throws: ``MovieFormatError`` naming `parent` for a size below the 8-byte header, a 64-bit
///   size, or a size past what is left.
func readChildAtoms(_ r: inout ByteReader, in parent: FourCC) throws(MovieFormatError) -> [(type: FourCC, body: ByteReader)] {
    var children: [(type: FourCC, body: ByteReader)] = []
    while r.remaining > 0 {
        if r.remaining == 4, r.rest.allSatisfy({ $0 == 0 }) { break }
        guard r.remaining >= 8 else {
            throw MovieFormatError(code: .invalidAtomSize, atom: parent,
                message: "'\(parent)' atom ends with \(r.remaining) stray bytes where an atom header should be")
        }
        let size32 = try r.readUInt32()
        let type = try r.readFourCC()
        let size = size32 == 0 ? r.remaining + 8 : Int(size32)
        guard size32 != 1, size >= 8, size - 8 <= r.remaining else {
            throw MovieFormatError(code: .invalidAtomSize, atom: parent,
                message: "'\(parent)' atom holds an atom '\(type)' that declares a size of \(size32), which does not fit the \(r.remaining + 8) bytes left")
        }
        children.append((type, try r.subReader(size - 8, context: type)))
    }
    return children
}
