import MovieContainer
import MoviePlatform
import MovieCapture
/// The Exif metadata a photo carries, and the APP1 segment that holds it.
///
/// The segment follows Exif 2.32 (CIPA DC-008-2019) §4.5.4 and §4.6: `FF E1`, a length, the
/// identifier `Exif\0\0`, then a TIFF structure (TIFF 6.0 §2) in big-endian (`MM`) byte order
/// with two image file directories — IFD0, describing the picture, and the Exif IFD it points
/// to, describing the capture. Besides the tags a caller sets, it writes the ones the standard
/// requires of a compressed primary image: 72 dpi resolution, centered chroma siting, Exif
/// version 2.32, Y Cb Cr component order, FlashPix version 1.0 and the sRGB colour space.
package struct ExifMetadata: Hashable, Sendable {
    /// The Exif `Orientation` (1–8) that tells a viewer how to turn the stored pixels upright.
    package var orientation: Int
    /// The camera's manufacturer (`Make`), left out when `nil`.
    package var make: String?
    /// The camera's model (`Model`), left out when `nil`.
    package var model: String?
    /// When the picture was captured, local time, as `YYYY:MM:DD HH:MM:SS` (`DateTimeOriginal`).
    package var dateTimeOriginal: String
    /// The local time's offset from UTC as `+HH:MM` or `-HH:MM` (`OffsetTimeOriginal`), left
    /// out when `nil`.
    package var offsetTimeOriginal: String?
    /// The stored picture's width and height in pixels (`PixelXDimension`, `PixelYDimension`).
    package var pixelWidth: Int
    package var pixelHeight: Int

    package init(orientation: Int, make: String?, model: String?, dateTimeOriginal: String, offsetTimeOriginal: String?,
                 pixelWidth: Int, pixelHeight: Int) {
        self.orientation = orientation
        self.make = make
        self.model = model
        self.dateTimeOriginal = dateTimeOriginal
        self.offsetTimeOriginal = offsetTimeOriginal
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// Tag numbers, named as in Exif 2.32 Table 4 (IFD0) and Table 7 (Exif IFD).
    package enum Tag {
        static let make: UInt16 = 0x010F
        static let model: UInt16 = 0x0110
        static let orientation: UInt16 = 0x0112
        static let xResolution: UInt16 = 0x011A
        static let yResolution: UInt16 = 0x011B
        static let resolutionUnit: UInt16 = 0x0128
        static let yCbCrPositioning: UInt16 = 0x0213
        static let exifIFDPointer: UInt16 = 0x8769
        static let exifVersion: UInt16 = 0x9000
        static let dateTimeOriginal: UInt16 = 0x9003
        static let offsetTimeOriginal: UInt16 = 0x9011
        static let componentsConfiguration: UInt16 = 0x9101
        static let flashpixVersion: UInt16 = 0xA000
        static let colorSpace: UInt16 = 0xA001
        static let pixelXDimension: UInt16 = 0xA002
        static let pixelYDimension: UInt16 = 0xA003
    }

    /// The TIFF structure: header, IFD0 at offset 8, the Exif IFD right after IFD0 and its values.
    package func tiffBytes() -> [UInt8] {
        var exif = TIFFDirectory(fields: [
            TIFFField(Tag.exifVersion, .undefined(Array("0232".utf8))),
            TIFFField(Tag.dateTimeOriginal, .ascii(dateTimeOriginal)),
        ])
        if let offsetTimeOriginal { exif.fields.append(TIFFField(Tag.offsetTimeOriginal, .ascii(offsetTimeOriginal))) }
        exif.fields += [
            TIFFField(Tag.componentsConfiguration, .undefined([1, 2, 3, 0])),  // Y, Cb, Cr, none
            TIFFField(Tag.flashpixVersion, .undefined(Array("0100".utf8))),
            TIFFField(Tag.colorSpace, .short(1)),  // sRGB
            TIFFField(Tag.pixelXDimension, .long(UInt32(clamping: pixelWidth))),
            TIFFField(Tag.pixelYDimension, .long(UInt32(clamping: pixelHeight))),
        ]
        var ifd0 = TIFFDirectory(fields: [])
        if let make { ifd0.fields.append(TIFFField(Tag.make, .ascii(make))) }
        if let model { ifd0.fields.append(TIFFField(Tag.model, .ascii(model))) }
        ifd0.fields += [
            TIFFField(Tag.orientation, .short(UInt16(clamping: orientation))),
            TIFFField(Tag.xResolution, .rational(72, 1)),
            TIFFField(Tag.yResolution, .rational(72, 1)),
            TIFFField(Tag.resolutionUnit, .short(2)),  // inches
            TIFFField(Tag.yCbCrPositioning, .short(1)),  // centered, as JPEG samples chroma
        ]
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + ifd0.byteCount + TIFFField.exifIFDPointerSize
        ifd0.fields.append(TIFFField(Tag.exifIFDPointer, .long(UInt32(exifOffset))))

        var writer = ByteWriter(capacity: exifOffset + exif.byteCount)
        writer.write(contentsOf: Array("MM".utf8))  // big-endian
        writer.write(UInt16(42))
        writer.write(UInt32(ifd0Offset))
        ifd0.write(at: ifd0Offset, into: &writer)
        exif.write(at: exifOffset, into: &writer)
        return writer.bytes
    }

    /// The whole APP1 segment, from its `FF E1` marker; `nil` when it would pass the 65,533
    /// bytes a segment's length field allows (only with a very long make or model).
    package func app1Segment() -> [UInt8]? {
        let tiff = tiffBytes()
        let length = 2 + 6 + tiff.count
        guard length <= Int(UInt16.max) else { return nil }
        var writer = ByteWriter(capacity: 2 + length)
        writer.write(UInt16(0xFFE1))
        writer.write(UInt16(length))
        writer.write(contentsOf: Array("Exif".utf8) + [0, 0])
        writer.write(contentsOf: tiff)
        return writer.bytes
    }
}

/// One field of an image file directory (TIFF 6.0 §2, "IFD Entry"): a tag, a type, a count and
/// the value itself when it fits in 4 bytes, else the offset of the value.
package struct TIFFField: Hashable, Sendable {
    package enum Value: Hashable, Sendable {
        /// Text, written with its terminating NUL (type 2, ASCII).
        case ascii(String)
        /// Type 3, SHORT.
        case short(UInt16)
        /// Type 4, LONG.
        case long(UInt32)
        /// A numerator and denominator (type 5, RATIONAL).
        case rational(UInt32, UInt32)
        /// Bytes whose meaning the tag defines (type 7, UNDEFINED).
        case undefined([UInt8])
    }

    package var tag: UInt16
    package var value: Value

    package init(_ tag: UInt16, _ value: Value) {
        self.tag = tag
        self.value = value
    }

    /// The space the Exif IFD pointer adds to IFD0: one 12-byte entry, its value inline.
    package static let exifIFDPointerSize = 12

    package var type: UInt16 {
        switch value {
        case .ascii: 2
        case .short: 3
        case .long: 4
        case .rational: 5
        case .undefined: 7
        }
    }

    /// The number of values: characters with the NUL for text, bytes for undefined data.
    package var count: UInt32 {
        switch value {
        case .ascii: UInt32(valueBytes.count)
        case .undefined(let bytes): UInt32(bytes.count)
        case .short, .long, .rational: 1
        }
    }

    /// The value as stored, big-endian. NUL bytes inside text are left out so the text ends at
    /// its own terminator.
    package var valueBytes: [UInt8] {
        var writer = ByteWriter(capacity: 8)
        switch value {
        case .ascii(let text): writer.write(contentsOf: text.utf8.filter { $0 != 0 } + [0])
        case .short(let v): writer.write(v)
        case .long(let v): writer.write(v)
        case .rational(let numerator, let denominator):
            writer.write(numerator)
            writer.write(denominator)
        case .undefined(let bytes): writer.write(contentsOf: bytes)
        }
        return writer.bytes
    }
}

/// An image file directory (TIFF 6.0 §2): a 2-byte entry count, 12-byte entries in ascending
/// tag order, a 4-byte offset of the next directory (0: none), then the values that do not fit
/// in 4 bytes, each starting on an even offset.
package struct TIFFDirectory: Hashable, Sendable {
    /// The fields, in ascending tag order.
    package var fields: [TIFFField]

    /// The bytes of the values stored after the directory, each padded to an even length.
    private var externalValueSize: Int {
        fields.map(\.valueBytes.count).filter { $0 > 4 }.reduce(0) { $0 + ($1 + 1) / 2 * 2 }
    }

    /// The directory's size in bytes, with its out-of-line values.
    package var byteCount: Int { 2 + 12 * fields.count + 4 + externalValueSize }

    /// Writes the directory as it will sit at `offset` from the start of the TIFF header;
    /// offsets of out-of-line values are computed from it.
    package func write(at offset: Int, into writer: inout ByteWriter) {
        precondition(zip(fields, fields.dropFirst()).allSatisfy { $0.tag < $1.tag }, "TIFF fields must be in ascending tag order")
        var external: [UInt8] = []
        let externalStart = offset + 2 + 12 * fields.count + 4
        writer.write(UInt16(fields.count))
        for field in fields {
            writer.write(field.tag)
            writer.write(field.type)
            writer.write(field.count)
            let bytes = field.valueBytes
            if bytes.count <= 4 {
                // Left-justified in the 4-byte field (TIFF 6.0 §2, "Value/Offset").
                writer.write(contentsOf: bytes + [UInt8](repeating: 0, count: 4 - bytes.count))
            } else {
                writer.write(UInt32(externalStart + external.count))
                external += bytes
                if external.count % 2 == 1 { external.append(0) }
            }
        }
        writer.write(UInt32(0))  // no next directory
        writer.write(contentsOf: external)
    }
}

/// How a JPEG file begins (ITU-T T.81 Annex B): SOI, then marker segments, each `FF xx` and a
/// 2-byte length that counts itself, up to the start of scan.
package enum JPEGHeader {
    /// Returns `jpeg` with `segment` as the first segment after SOI and every JFIF APP0 segment
    /// removed (Exif 2.32 §4.5.4: an Exif file starts with APP1 right after SOI), or `nil`
    /// when `jpeg` does not begin with SOI or its header segments run past its end.
    package static func insertingFirstSegment(_ segment: [UInt8], replacingJFIFIn jpeg: [UInt8]) -> [UInt8]? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var result: [UInt8] = [0xFF, 0xD8] + segment
        result.reserveCapacity(jpeg.count + segment.count)
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            guard length >= 2, i + 2 + length <= jpeg.count else { return nil }
            let isJFIF = jpeg[i + 1] == 0xE0 && length >= 7 && Array(jpeg[(i + 4)..<(i + 9)]) == Array("JFIF".utf8) + [0]
            if !isJFIF { result += jpeg[i..<(i + 2 + length)] }
            i += 2 + length
        }
        result += jpeg[i...]
        return result
    }
}
