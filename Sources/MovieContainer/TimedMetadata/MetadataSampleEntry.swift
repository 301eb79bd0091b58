/// `mebx`: the sample description of a timed metadata track (QuickTime File Format, "Timed
/// metadata sample descriptions"). After the common fields comes a `keys` atom whose children
/// are named by local key IDs (1, 2, … here), each holding `keyd` (namespace `mdta` and the
/// key) and `dtyp` (namespace 0 and the well-known type). Samples name keys by those IDs.
package struct MetadataSampleEntry: Hashable, Sendable {
    package static let format: FourCC = "mebx"

    /// The keys, in local-ID order: the first is ID 1.
    package var keys: [TimedMetadataKey]

    package init(keys: [TimedMetadataKey]) { self.keys = keys }

    /// The local ID of `key` in this description, or `nil` when the track does not list it.
    package func localID(of key: TimedMetadataKey) -> UInt32? {
        keys.firstIndex(of: key).map { UInt32($0 + 1) }
    }

    package var descriptionEntry: SampleDescriptionAtom.Entry {
        var w = ByteWriter(capacity: 64 + 64 * keys.count)
        w.write(contentsOf: [0, 0, 0, 0, 0, 0] as [UInt8])  // reserved
        w.write(UInt16(1))  // data reference index
        let keysStart = w.count
        w.write(UInt32(0))
        w.write("keys" as FourCC)
        for (index, key) in keys.enumerated() {
            let start = w.count
            w.write(UInt32(0))
            w.write(UInt32(index + 1))  // the local key ID is the atom's type
            let identifier = Array(key.identifier.utf8)
            w.write(UInt32(12 + identifier.count))
            w.write("keyd" as FourCC)
            w.write("mdta" as FourCC)
            w.write(contentsOf: identifier)
            w.write(UInt32(16))
            w.write("dtyp" as FourCC)
            w.write(UInt32(0))  // namespace 0: a well-known type follows
            w.write(key.dataType.rawValue)
            w.patch(UInt32(w.count - start), at: start)
        }
        w.patch(UInt32(w.count - keysStart), at: keysStart)
        return SampleDescriptionAtom.Entry(format: Self.format, body: w.bytes)
    }

    /// Reads a `mebx` description. Keys must have local IDs 1, 2, … in order, `mdta` names and
    /// well-known types, as this library writes them; anything else is refused by name.
    package init(_ entry: SampleDescriptionAtom.Entry) throws(MovieFormatError) {
        guard entry.format == Self.format else {
            throw .invalidValue(entry.format, "'\(entry.format)' is not a timed metadata ('mebx') sample description")
        }
        var r = ByteReader(entry.body, context: entry.format)
        try r.skip(8)
        guard let keysAtom = try readChildAtoms(&r, in: Self.format).first(where: { $0.type == "keys" }) else {
            throw .missingAtom("keys", in: "the 'mebx' sample description")
        }
        var body = keysAtom.body
        keys = []
        for (type, var key) in try readChildAtoms(&body, in: "keys") {
            guard type.rawValue == UInt32(keys.count + 1) else {
                throw .invalidValue("keys", "local key ID \(type.rawValue) is out of order; expected \(keys.count + 1)")
            }
            keys.append(try Self.readKey(&key, id: type.rawValue))
        }
    }

    /// Reads one key's `keyd` and `dtyp`.
    private static func readKey(_ r: inout ByteReader, id: UInt32) throws(MovieFormatError) -> TimedMetadataKey {
        var identifier: String?, dataType: TimedMetadataKey.DataType?
        for (type, var body) in try readChildAtoms(&r, in: "keys") {
            switch type {
            case "keyd":
                guard try body.readFourCC() == "mdta" else {
                    throw .invalidValue("keyd", "key \(id) is not in the 'mdta' namespace")
                }
                identifier = String(decoding: body.rest, as: UTF8.self)
            case "dtyp":
                guard try body.readUInt32() == 0 else {
                    throw .invalidValue("dtyp", "key \(id)'s data type is not a well-known type")
                }
                dataType = .init(rawValue: try body.readUInt32())
            default:
                continue
            }
        }
        guard let identifier, let dataType else { throw .missingAtom("keyd", in: "key \(id) of the 'mebx' keys") }
        return TimedMetadataKey(identifier: identifier, dataType: dataType)
    }
}
