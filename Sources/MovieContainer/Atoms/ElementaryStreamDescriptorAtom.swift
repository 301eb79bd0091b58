/// `esds`: the MPEG-4 elementary stream descriptor of an AAC track (ISO/IEC 14496-1 §7.2.6.5,
/// as ISO/IEC 14496-14 stores it): an `ES_Descriptor` holding a `DecoderConfigDescriptor` (object
/// type 0x40, audio stream, buffer size, bit rates) with the `AudioSpecificConfig`, and an
/// `SLConfigDescriptor`.
///
/// Descriptor lengths are written in four bytes (`80 80 80 nn`), as Apple's and FFmpeg's
/// writers do; any length form is read.
package struct ElementaryStreamDescriptorAtom: QuickTimeAtom {
    package static let type: FourCC = "esds"
    /// `objectTypeIndication` for MPEG-4 audio (ISO/IEC 14496-3).
    static let mpeg4Audio: UInt8 = 0x40
    /// `streamType` 5 (audio) << 2, `upStream` 0, reserved 1.
    static let audioStream: UInt8 = 0x15

    package var objectTypeIndication: UInt8 = Self.mpeg4Audio
    package var bufferSize: UInt32
    package var maxBitRate: UInt32
    package var averageBitRate: UInt32
    /// The `DecoderSpecificInfo`: for AAC, the `AudioSpecificConfig`.
    package var decoderSpecificInfo: [UInt8]

    package init(aac format: AACFormat) {
        bufferSize = format.bufferSize
        maxBitRate = format.maxBitRate
        averageBitRate = format.averageBitRate
        decoderSpecificInfo = format.audioSpecificConfig
    }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        let specific = 5 + decoderSpecificInfo.count
        Self.writeDescriptorHeader(tag: 0x03, length: 3 + (5 + 13 + specific) + (5 + 1), to: &w)
        w.write(UInt16(0))  // ES_ID: 0 in a file (ISO/IEC 14496-14 §3.1.2)
        w.write(UInt8(0))  // no dependency, URL or OCR stream
        Self.writeDescriptorHeader(tag: 0x04, length: 13 + specific, to: &w)
        w.write(objectTypeIndication)
        w.write(Self.audioStream)
        w.write(UInt8(truncatingIfNeeded: bufferSize >> 16))
        w.write(UInt16(truncatingIfNeeded: bufferSize))
        w.write(maxBitRate)
        w.write(averageBitRate)
        Self.writeDescriptorHeader(tag: 0x05, length: decoderSpecificInfo.count, to: &w)
        w.write(contentsOf: decoderSpecificInfo)
        Self.writeDescriptorHeader(tag: 0x06, length: 1, to: &w)
        w.write(UInt8(2))  // SLConfigDescriptor predefined 2: reserved for MP4 files
    }

    private static func writeDescriptorHeader(tag: UInt8, length: Int, to w: inout ByteWriter) {
        w.write(tag)
        w.write(UInt8(0x80 | (length >> 21) & 0x7F))
        w.write(UInt8(0x80 | (length >> 14) & 0x7F))
        w.write(UInt8(0x80 | (length >> 7) & 0x7F))
        w.write(UInt8(length & 0x7F))
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        var es = try Self.descriptor(0x03, in: &r)
        _ = try es.readUInt16()  // ES_ID
        let flags = try es.readUInt8()
        if flags & 0x80 != 0 { try es.skip(2) }  // dependsOn_ES_ID
        if flags & 0x40 != 0 { try es.skip(Int(try es.readUInt8())) }  // URL
        if flags & 0x20 != 0 { try es.skip(2) }  // OCR_ES_Id
        var config = try Self.descriptor(0x04, in: &es)
        objectTypeIndication = try config.readUInt8()
        _ = try config.readUInt8()  // stream type
        bufferSize = try config.readUInt24()
        maxBitRate = try config.readUInt32()
        averageBitRate = try config.readUInt32()
        var specific = try Self.descriptor(0x05, in: &config)
        decoderSpecificInfo = try specific.readBytes(specific.remaining)
    }

    /// Reads the header of a descriptor that must have `tag` and returns a reader over its body.
    private static func descriptor(_ tag: UInt8, in r: inout ByteReader) throws(MovieFormatError) -> ByteReader {
        let found = try r.readUInt8()
        guard found == tag else {
            throw .invalidValue("esds", "expected descriptor tag \(tag), found \(found)")
        }
        var length = 0
        for _ in 0..<4 {
            let byte = try r.readUInt8()
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        guard length <= r.remaining else {
            throw .invalidValue("esds", "descriptor \(tag) claims \(length) bytes, more than the atom holds")
        }
        return try r.subReader(length, context: "esds")
    }
}
