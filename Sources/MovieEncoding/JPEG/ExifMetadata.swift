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
///
/// With a ``thumbnail``, IFD0 links to a third directory, IFD1 (§4.5.5, §4.6.2), that locates
/// the thumbnail's JPEG stream, stored right after it inside the segment.
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
    /// A small JPEG of the picture (SOI to EOI, baseline, no APPn or COM segment: Exif 2.32
    /// §4.5.5), stored in IFD1 with the same ``orientation`` as the photo, so a viewer turns it
    /// like the photo; `nil` writes no IFD1. Its pixels are stored as captured, unrotated, like
    /// the photo's. Make one with ``thumbnailJPEG(for:longestSide:quality:owner:)``; it must be
    /// at most ``maximumThumbnailByteCount`` bytes, or ``app1Segment()`` returns `nil`.
    package var thumbnail: [UInt8]?

    /// Creates the metadata of one photo; `thumbnail` is `nil` (none) unless given.
    package init(orientation: Int, make: String?, model: String?, dateTimeOriginal: String, offsetTimeOriginal: String?,
                 pixelWidth: Int, pixelHeight: Int, thumbnail: [UInt8]? = nil) {
        self.orientation = orientation
        self.make = make
        self.model = model
        self.dateTimeOriginal = dateTimeOriginal
        self.offsetTimeOriginal = offsetTimeOriginal
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.thumbnail = thumbnail
    }

    /// Tag numbers, named as in Exif 2.32 Table 4 (IFD0 and IFD1) and Table 7 (Exif IFD).
    package enum Tag {
        static let compression: UInt16 = 0x0103
        static let make: UInt16 = 0x010F
        static let model: UInt16 = 0x0110
        static let orientation: UInt16 = 0x0112
        static let xResolution: UInt16 = 0x011A
        static let yResolution: UInt16 = 0x011B
        static let resolutionUnit: UInt16 = 0x0128
        static let jpegInterchangeFormat: UInt16 = 0x0201
        static let jpegInterchangeFormatLength: UInt16 = 0x0202
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

    /// The TIFF structure: header, IFD0 at offset 8, the Exif IFD right after IFD0 and its
    /// values, then with a ``thumbnail`` IFD1 and the thumbnail's bytes.
    package func tiffBytes() -> [UInt8] {
        let exif = exifDirectory()
        var ifd0 = primaryImageDirectory()
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + ifd0.byteCount + TIFFField.exifIFDPointerSize
        ifd0.fields.append(TIFFField(Tag.exifIFDPointer, .long(UInt32(exifOffset))))
        let ifd1Offset = exifOffset + exif.byteCount
        let ifd1 = thumbnail.map { thumbnailDirectory(at: ifd1Offset, thumbnailByteCount: $0.count) }

        var writer = ByteWriter(capacity: ifd1Offset + (ifd1?.byteCount ?? 0) + (thumbnail?.count ?? 0))
        writer.write(contentsOf: Array("MM".utf8))  // big-endian
        writer.write(UInt16(42))
        writer.write(UInt32(ifd0Offset))
        ifd0.write(at: ifd0Offset, nextDirectoryOffset: ifd1 == nil ? 0 : ifd1Offset, into: &writer)
        exif.write(at: exifOffset, into: &writer)
        if let ifd1, let thumbnail {
            ifd1.write(at: ifd1Offset, into: &writer)
            writer.write(contentsOf: thumbnail)
        }
        return writer.bytes
    }

    /// IFD0 without the Exif IFD pointer: the picture's make, model, orientation and the
    /// resolution and chroma siting a compressed primary image records.
    private func primaryImageDirectory() -> TIFFDirectory {
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
        return ifd0
    }

    /// The Exif IFD: versions, the capture time, the component order, colour space and size.
    private func exifDirectory() -> TIFFDirectory {
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
        return exif
    }

    /// IFD1 as it sits at `offset` (Exif 2.32 §4.5.5): a JPEG-compressed thumbnail
    /// (Compression 6) of `thumbnailByteCount` bytes stored right after the directory, turned
    /// by the photo's orientation.
    private func thumbnailDirectory(at offset: Int, thumbnailByteCount: Int) -> TIFFDirectory {
        func directory(thumbnailOffset: Int) -> TIFFDirectory {
            TIFFDirectory(fields: [
                TIFFField(Tag.compression, .short(6)),  // JPEG
                TIFFField(Tag.orientation, .short(UInt16(clamping: orientation))),
                TIFFField(Tag.xResolution, .rational(72, 1)),
                TIFFField(Tag.yResolution, .rational(72, 1)),
                TIFFField(Tag.resolutionUnit, .short(2)),  // inches
                TIFFField(Tag.jpegInterchangeFormat, .long(UInt32(clamping: thumbnailOffset))),
                TIFFField(Tag.jpegInterchangeFormatLength, .long(UInt32(clamping: thumbnailByteCount))),
            ])
        }
        // The offset is a LONG held in its entry, so the directory's size does not depend on it.
        return directory(thumbnailOffset: offset + directory(thumbnailOffset: 0).byteCount)
    }

    /// The most bytes the segment's length field allows after the `Exif\0\0` identifier:
    /// 65,535, less the length field itself and the identifier's 6 bytes.
    private static let maximumTIFFByteCount = Int(UInt16.max) - 2 - 6

    /// The largest ``thumbnail``, in bytes, that fits in the APP1 segment beside the rest of
    /// this metadata; a larger one makes ``app1Segment()`` return `nil`, so encode it again
    /// smaller or at a lower quality, or leave it out.
    package var maximumThumbnailByteCount: Int {
        var withEmptyThumbnail = self
        withEmptyThumbnail.thumbnail = []
        return max(0, Self.maximumTIFFByteCount - withEmptyThumbnail.tiffBytes().count)
    }

    /// The whole APP1 segment, from its `FF E1` marker; `nil` when it would pass the 65,533
    /// bytes a segment's length field allows: with a ``thumbnail`` larger than
    /// ``maximumThumbnailByteCount``, or a very long make or model.
    package func app1Segment() -> [UInt8]? {
        let tiff = tiffBytes()
        guard tiff.count <= Self.maximumTIFFByteCount else { return nil }
        let length = 2 + 6 + tiff.count
        var writer = ByteWriter(capacity: 2 + length)
        writer.write(UInt16(0xFFE1))
        writer.write(UInt16(length))
        writer.write(contentsOf: Array("Exif".utf8) + [0, 0])
        writer.write(contentsOf: tiff)
        return writer.bytes
    }
}
