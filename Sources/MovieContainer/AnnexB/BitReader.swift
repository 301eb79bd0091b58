/// Reads the bits of an H.264 or HEVC RBSP: fixed-width fields and Exp-Golomb codes (ITU-T H.264 §7.2,
/// §9.1).
struct BitReader {
    private let bytes: [UInt8]
    private var bitPosition = 0
    /// The codec its errors name: "H.264" or "HEVC".
    var codec = "H.264"

    /// Creates a reader over a NAL unit's payload with its emulation-prevention bytes removed.
    init(nalPayload: some Collection<UInt8>) {
        var rbsp: [UInt8] = []
        self.init(nalPayload: nalPayload, reusing: &rbsp)
    }

    /// Creates a reader like ``init(nalPayload:)``, unescaping into `storage` (emptied first),
    /// so that a loop over many NAL units allocates once.
    init(nalPayload: some Collection<UInt8>, reusing storage: inout [UInt8]) {
        storage.removeAll(keepingCapacity: true)
        storage.reserveCapacity(nalPayload.count)
        var zeros = 0
        for byte in nalPayload {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            storage.append(byte)
        }
        bytes = storage
    }

    /// Creates a reader over bytes that need no unescaping, such as an AAC
    /// `AudioSpecificConfig`.
    init(bytes: [UInt8]) { self.bytes = bytes }

    var bitsLeft: Int { bytes.count * 8 - bitPosition }

    mutating func bit() throws(MovieFormatError) -> UInt32 {
        guard bitPosition < bytes.count * 8 else { throw .invalidBitstream("a parameter set ends too early", codec: codec) }
        let byte = bytes[bitPosition >> 3]
        let value = (byte >> (7 - UInt8(bitPosition & 7))) & 1
        bitPosition += 1
        return UInt32(value)
    }

    mutating func bits(_ count: Int) throws(MovieFormatError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    mutating func flag() throws(MovieFormatError) -> Bool { try bit() == 1 }

    /// ue(v): unsigned Exp-Golomb.
    mutating func ue() throws(MovieFormatError) -> UInt32 {
        var leadingZeros = 0
        while try bit() == 0 {
            leadingZeros += 1
            guard leadingZeros < 32 else { throw .invalidBitstream("an Exp-Golomb code is longer than 32 bits", codec: codec) }
        }
        return (UInt32(1) << leadingZeros) - 1 + (try bits(leadingZeros))
    }

    /// ue(v) that must not exceed `limit` (so sums built on it cannot overflow).
    mutating func ue(atMost limit: UInt32, _ field: String) throws(MovieFormatError) -> UInt32 {
        let value = try ue()
        guard value <= limit else { throw .invalidBitstream("\(field) \(value) is out of range", codec: codec) }
        return value
    }

    /// se(v): signed Exp-Golomb.
    mutating func se() throws(MovieFormatError) -> Int32 {
        let k = Int64(try ue())
        return Int32(k & 1 == 1 ? (k + 1) / 2 : -(k / 2))
    }
}
