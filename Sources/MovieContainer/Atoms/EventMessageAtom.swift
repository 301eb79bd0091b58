/// `emsg`: an event message carried in a fragmented stream (ISO/IEC 23009-1 §5.10.3.3, version 1
/// as CMAF uses it): a scheme, a value, and a message that applies from `presentationTime` on.
///
/// Players that do not know the scheme skip the box; the live preview page reads the capture
/// orientation from it (``LiveStreamMessages``).
package struct EventMessageAtom: QuickTimeAtom {
    package static let type: FourCC = "emsg"

    package var timescale: UInt32
    /// When the event applies, in `timescale` units on the track's media timeline.
    package var presentationTime: UInt64
    /// How long it applies; `0xFFFF_FFFF` for "until further notice".
    package var eventDuration: UInt32 = 0xFFFF_FFFF
    package var id: UInt32
    package var schemeIDURI: String
    package var value: String
    package var messageData: [UInt8]

    package init(schemeIDURI: String, value: String, timescale: UInt32, presentationTime: UInt64, id: UInt32,
                 messageData: [UInt8]) {
        self.schemeIDURI = schemeIDURI
        self.value = value
        self.timescale = timescale
        self.presentationTime = presentationTime
        self.id = id
        self.messageData = messageData
    }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 1, flags: 0)
        w.write(timescale)
        w.write(presentationTime)
        w.write(eventDuration)
        w.write(id)
        w.write(contentsOf: Array(schemeIDURI.utf8) + [0])
        w.write(contentsOf: Array(value.utf8) + [0])
        w.write(contentsOf: messageData)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, _) = try r.readVersionAndFlags()
        guard version == 1 else { throw .invalidValue("emsg", "version \(version) is not read; only version 1") }
        timescale = try r.readUInt32()
        presentationTime = try r.readUInt64()
        eventDuration = try r.readUInt32()
        id = try r.readUInt32()
        schemeIDURI = try Self.readNullTerminated(&r)
        value = try Self.readNullTerminated(&r)
        messageData = try r.readBytes(r.remaining)
    }

    private static func readNullTerminated(_ r: inout ByteReader) throws(MovieFormatError) -> String {
        var bytes: [UInt8] = []
        while true {
            let byte = try r.readUInt8()
            if byte == 0 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
