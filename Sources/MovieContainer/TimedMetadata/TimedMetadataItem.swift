/// One value of a timed metadata sample: a key of the track and what it holds from the
/// sample's time on.
public struct TimedMetadataItem: Hashable, Sendable {
    /// The key, one of the track's.
    public var key: TimedMetadataKey
    /// The value, of the key's data type.
    public var value: MetadataItem.Value

    /// Creates an item.
    public init(key: TimedMetadataKey, value: MetadataItem.Value) {
        self.key = key
        self.value = value
    }

    /// The bytes of a sample holding `items`: for each, its size, the key's local ID in
    /// `entry` and the value's bytes (QuickTime File Format, "Timed metadata media").
    /// - Throws: ``MovieWriterError`` when the track does not list a key or a value is not of
    ///   its key's type.
    static func sampleBytes(_ items: [TimedMetadataItem], entry: MetadataSampleEntry) throws -> [UInt8] {
        var w = ByteWriter(capacity: 32 * items.count)
        for item in items {
            guard let id = entry.localID(of: item.key) else {
                throw MovieWriterError(.invalidSample, "timed metadata: the track does not list the key \(item.key.identifier); add it to the track's keys")
            }
            guard let bytes = item.key.encode(item.value) else {
                throw MovieWriterError(.invalidSample, "timed metadata: \(item.value) is not a value of \(item.key.identifier), whose type is \(item.key.dataType)")
            }
            w.write(UInt32(8 + bytes.count))
            w.write(id)
            w.write(contentsOf: bytes)
        }
        return w.bytes
    }

    /// The items of a sample's bytes, their keys from `entry`.
    /// - Throws: ``MovieFormatError`` for a box that does not fit or a local ID the
    ///   description does not list.
    package static func items(inSample bytes: [UInt8], entry: MetadataSampleEntry) throws(MovieFormatError) -> [TimedMetadataItem] {
        var r = ByteReader(bytes, context: MetadataSampleEntry.format)
        var items: [TimedMetadataItem] = []
        for (type, body) in try readChildAtoms(&r, in: MetadataSampleEntry.format) {
            let id = Int(type.rawValue)
            guard id >= 1, id <= entry.keys.count else {
                throw .invalidValue(MetadataSampleEntry.format, "a sample names local key ID \(id), which the description does not list")
            }
            let key = entry.keys[id - 1]
            items.append(TimedMetadataItem(key: key, value: key.decode(Array(body.rest))))
        }
        return items
    }
}
