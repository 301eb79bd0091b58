import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding

/// Exif thumbnails: the box filter that makes the small picture (exact averages written out,
/// NV12, odd sizes, padded rows, against a plain reference), IFD1 and the thumbnail in the APP1
/// segment byte by byte (Exif 2.32 §4.5.5, §4.6.2), and real photos read back by exiftool and
/// ffmpeg in all eight orientations.
@Suite struct ExifThumbnailTests {
    // MARK: Frames

    /// The size of each plane of a `width` x `height` picture, in bytes per row and rows.
    static func planeSizes(width: Int, height: Int, pixelFormat: PixelFormat) -> [(rowBytes: Int, rows: Int)] {
        let chroma = (rowBytes: (width + 1) / 2, rows: (height + 1) / 2)
        return pixelFormat == .i420 ? [(width, height), chroma, chroma] : [(width, height), (2 * chroma.rowBytes, chroma.rows)]
    }

    /// A frame over the given planes (each tightly packed), its rows `padding` bytes longer than
    /// the picture and the padding filled with 0xFF, so a filter that read it would be off.
    static func frame(_ planes: [[UInt8]], width: Int, height: Int, pixelFormat: PixelFormat, padding: Int = 0,
                      timestamp: UInt64 = 0, sequenceNumber: UInt64 = 0) -> VideoFrame {
        let sizes = planeSizes(width: width, height: height, pixelFormat: pixelFormat)
        precondition(zip(planes, sizes).allSatisfy { $0.count == $1.rowBytes * $1.rows })
        let byteCount = sizes.map { ($0.rowBytes + padding) * $0.rows }.reduce(0, +)
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 16)
        base.initializeMemory(as: UInt8.self, repeating: 0xFF, count: byteCount)
        var views: [PlaneView] = []
        var start = base
        for (plane, size) in zip(planes, sizes) {
            let stride = size.rowBytes + padding
            for row in 0..<size.rows {
                plane.withUnsafeBytes { (start + row * stride).copyMemory(from: $0.baseAddress! + row * size.rowBytes, byteCount: size.rowBytes) }
            }
            views.append(PlaneView(baseAddress: UnsafeRawPointer(start), bytesPerRow: stride, height: size.rows))
            start += stride * size.rows
        }
        let storage = ImmutableBytes(unsafeUnchangingBuffer: UnsafeRawBufferPointer(start: base, count: byteCount)) {
            $0.baseAddress?.deallocate()
        }
        return VideoFrame(width: width, height: height, pixelFormat: pixelFormat, timestamp: timestamp,
                          sequenceNumber: sequenceNumber, planes: views, storage: storage)
    }

    /// The Y, U and V planes of an I420 frame, each tightly packed.
    static func i420Planes(_ frame: VideoFrame) -> [[UInt8]] {
        #expect(frame.pixelFormat == .i420)
        let bytes = frame.packedBytes()
        let lumaSize = frame.width * frame.height
        let chromaSize = ((frame.width + 1) / 2) * ((frame.height + 1) / 2)
        return [Array(bytes[0..<lumaSize]), Array(bytes[lumaSize..<(lumaSize + chromaSize)]),
                Array(bytes[(lumaSize + chromaSize)...])]
    }

    /// NV12's chroma plane: `u` and `v` interleaved.
    static func interleaved(_ u: [UInt8], _ v: [UInt8]) -> [UInt8] { zip(u, v).flatMap { [$0, $1] } }

    /// The plainest box filter: for each output sample, the mean of the samples of its block
    /// that exist, rounded half up.
    static func referenceReduce(_ plane: [UInt8], width: Int, height: Int, by factor: Int) -> [UInt8] {
        let outWidth = (width + factor - 1) / factor, outHeight = (height + factor - 1) / factor
        var out: [UInt8] = []
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                var sum = 0, count = 0
                for sy in (y * factor)..<min(height, (y + 1) * factor) {
                    for sx in (x * factor)..<min(width, (x + 1) * factor) {
                        sum += Int(plane[sy * width + sx])
                        count += 1
                    }
                }
                out.append(UInt8((sum + count / 2) / count))
            }
        }
        return out
    }

    // MARK: Downscaler

    /// 8x4 by 2: every sum written out, with the rounding (half up) and the largest value.
    @Test func eachSampleIsTheRoundedMeanOfItsBlock() throws {
        let y: [UInt8] = [
            10, 20, 0, 0, 0, 0, 1, 1,
            30, 40, 0, 1, 1, 1, 1, 0,
            255, 255, 100, 101, 7, 9, 0, 0,
            255, 255, 102, 102, 8, 8, 1, 0,
        ]
        let u: [UInt8] = [10, 20, 30, 40,
                          50, 60, 70, 80]
        let v: [UInt8] = [200, 200, 0, 3,
                          200, 201, 0, 0]
        let source = Self.frame([y, u, v], width: 8, height: 4, pixelFormat: .i420, padding: 3,
                                timestamp: 123_456_789, sequenceNumber: 42)
        let small = PictureDownscaler.downscaled(source, by: 2)
        #expect(small.width == 4 && small.height == 2 && small.pixelFormat == .i420)
        #expect(small.timestamp == 123_456_789 && small.sequenceNumber == 42)
        let planes = Self.i420Planes(small)
        #expect(planes[0] == [
            25,   // (10 + 20 + 30 + 40) / 4
            0,    // 1 / 4 = 0.25, down
            1,    // 2 / 4 = 0.5, half up
            1,    // 3 / 4 = 0.75, up
            255,  // 1020 / 4: no overflow
            101,  // 405 / 4 = 101.25
            8,    // 32 / 4
            0,    // 1 / 4
        ])
        #expect(planes[1] == [35, 55], "(10 + 20 + 50 + 60) / 4, (30 + 40 + 70 + 80) / 4")
        #expect(planes[2] == [200, 1], "801 / 4 = 200.25, 3 / 4 = 0.75")
    }

    /// The same picture as NV12, with padded rows, gives the same I420 result.
    @Test func nv12ChromaIsSplitAsItIsReduced() throws {
        let y = (0..<32).map { UInt8($0 * 7) }
        let u: [UInt8] = [10, 20, 30, 40, 50, 60, 70, 80]
        let v: [UInt8] = [200, 200, 0, 3, 200, 201, 0, 0]
        let i420 = Self.frame([y, u, v], width: 8, height: 4, pixelFormat: .i420)
        let nv12 = Self.frame([y, Self.interleaved(u, v)], width: 8, height: 4, pixelFormat: .nv12, padding: 5)
        let fromNV12 = PictureDownscaler.downscaled(nv12, by: 2)
        #expect(fromNV12.pixelFormat == .i420)
        #expect(Self.i420Planes(fromNV12) == Self.i420Planes(PictureDownscaler.downscaled(i420, by: 2)))
        #expect(Self.i420Planes(fromNV12)[1] == [35, 55] && Self.i420Planes(fromNV12)[2] == [200, 1])
    }

    /// 5x3 by 2: the last column and row average only the samples that exist.
    @Test func oddSizesAverageThePartialBlocksAtTheEdges() throws {
        let y: [UInt8] = [
            1, 3, 5, 7, 9,
            2, 4, 6, 8, 10,
            11, 13, 15, 17, 19,
        ]
        let u: [UInt8] = [10, 20, 30,
                          40, 50, 61]
        let v: [UInt8] = [0, 0, 255,
                          0, 0, 255]
        let small = PictureDownscaler.downscaled(Self.frame([y, u, v], width: 5, height: 3, pixelFormat: .i420, padding: 1),
                                                 by: 2)
        #expect(small.width == 3 && small.height == 2)
        let planes = Self.i420Planes(small)
        #expect(planes[0] == [
            3,   // 10 / 4 = 2.5, half up
            7,   // 26 / 4 = 6.5
            10,  // (9 + 10) / 2 = 9.5: a block 1 wide
            12,  // (11 + 13) / 2: a block 1 high
            16,  // (15 + 17) / 2
            19,  // 19 / 1: the corner
        ])
        #expect(planes[1] == [30, 46], "(10 + 20 + 40 + 50) / 4, (30 + 61) / 2 = 45.5")
        #expect(planes[2] == [0, 255])
    }

    /// Random pictures of awkward sizes, I420 and NV12 with and without padding, against
    /// ``referenceReduce(_:width:height:by:)`` plane by plane.
    @Test(arguments: [(641, 363, 4), (97, 31, 2), (7, 5, 3), (1, 1, 1), (2, 2, 5), (33, 17, 5), (160, 120, 1), (64, 36, 12)])
    func matchesAPlainBoxFilter(_ size: (width: Int, height: Int, factor: Int)) throws {
        var generator = SystemRandomNumberGenerator()
        let (width, height, factor) = size
        let sizes = Self.planeSizes(width: width, height: height, pixelFormat: .i420)
        let planes = sizes.map { size in (0..<(size.rowBytes * size.rows)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let expected = zip(planes, sizes).map { Self.referenceReduce($0, width: $1.rowBytes, height: $1.rows, by: factor) }
        for padding in [0, 3] {
            let i420 = Self.frame(planes, width: width, height: height, pixelFormat: .i420, padding: padding)
            let nv12 = Self.frame([planes[0], Self.interleaved(planes[1], planes[2])], width: width, height: height,
                                  pixelFormat: .nv12, padding: padding)
            for source in [i420, nv12] {
                let small = PictureDownscaler.downscaled(source, by: factor)
                #expect(small.width == (width + factor - 1) / factor && small.height == (height + factor - 1) / factor)
                #expect(Self.i420Planes(small) == expected, "\(width)x\(height) \(source.pixelFormat) by \(factor), padding \(padding)")
            }
        }
    }

    @Test func toFitPicksTheSmallestFactorThatFits() throws {
        let cases: [(width: Int, height: Int, longestSide: Int, factor: Int)] = [
            (320, 240, 160, 2),    // 160x120
            (1920, 1080, 160, 12), // 160x90
            (1920, 1080, 480, 4),  // 480x270
            (160, 120, 160, 1),    // already fits
            (100, 50, 160, 1),     // smaller: never enlarged
            (161, 10, 160, 2),     // 81x5: one pixel too many at factor 1
            (100, 400, 160, 3),    // portrait: 34x134; factor 2 gives 200 rows
            (1281, 720, 160, 9),   // 143x80; factor 8 gives 161 columns
        ]
        for c in cases {
            #expect(PictureDownscaler.factor(toFit: c.longestSide, width: c.width, height: c.height) == c.factor,
                    "\(c.width)x\(c.height) to fit \(c.longestSide)")
        }
        let hd = Self.frame([[UInt8](repeating: 50, count: 1920 * 1080), [UInt8](repeating: 60, count: 1920 * 540)],
                            width: 1920, height: 1080, pixelFormat: .nv12, timestamp: 7, sequenceNumber: 8)
        let thumbnail = PictureDownscaler.downscaled(hd, toFit: 160)
        #expect(thumbnail.width == 160 && thumbnail.height == 90 && thumbnail.timestamp == 7 && thumbnail.sequenceNumber == 8)
        #expect(Set(Self.i420Planes(thumbnail)[0]) == [50] && Set(Self.i420Planes(thumbnail)[1]) == [60])
    }

    // MARK: Bytes

    /// Parses hex digits, ignoring spaces, line breaks and the words after each line's hex.
    func hex(_ text: String) -> [UInt8] {
        let digits = text.split(separator: "\n").map { line in
            line.split(separator: " ").prefix { $0.allSatisfy(\.isHexDigit) }.joined()
        }.joined()
        return stride(from: 0, to: digits.count, by: 2).map { i in
            let start = digits.index(digits.startIndex, offsetBy: i)
            return UInt8(digits[start..<digits.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    /// The metadata of PhotoOutputTests' hand-written case: 90° mirrored (Exif 5), make "Acme",
    /// model "X1"; its TIFF structure without a thumbnail is 262 bytes.
    func acmeMetadata(thumbnail: [UInt8]?) throws -> ExifMetadata {
        let orientation = try VideoOrientation(rotationAngle: 90, isMirrored: true)
        return ExifMetadata(orientation: orientation.exifOrientation, make: "Acme", model: "X1",
                            dateTimeOriginal: "2026:01:01 12:34:56", offsetTimeOriginal: "+01:00",
                            pixelWidth: 320, pixelHeight: 240, thumbnail: thumbnail)
    }

    /// Written out from Exif 2.32 §4.5.5 and §4.6.2: IFD0's next-IFD offset, 0 before, now
    /// points past the Exif IFD's values to IFD1, which locates the thumbnail stored after it.
    @Test func ifd1AndTheThumbnailWrittenOutByHand() throws {
        let thumbnail: [UInt8] = [0xFF, 0xD8, 0x01, 0x02, 0x03, 0xFF, 0xD9]
        let plain = try acmeMetadata(thumbnail: nil).tiffBytes()
        let tiff = try acmeMetadata(thumbnail: thumbnail).tiffBytes()
        #expect(plain.count == 262)
        // IFD0 sits at 8 with 8 entries: its next-IFD offset is at 8 + 2 + 8 × 12 = 106.
        #expect(Array(plain[106..<110]) == [0, 0, 0, 0], "no IFD1 without a thumbnail")
        #expect(Array(tiff[106..<110]) == hex("00000106"), "IFD1 at 262")
        #expect(Array(tiff[..<106]) == Array(plain[..<106]) && Array(tiff[110..<262]) == Array(plain[110...]),
                "everything else before IFD1 is unchanged")
        let expected = hex("""
            0007                            IFD1 (262): 7 entries
            0103 0003 00000001 00060000     Compression, SHORT, 6 (JPEG)
            0112 0003 00000001 00050000     Orientation, SHORT, 5, as IFD0's
            011A 0005 00000001 00000160     XResolution, RATIONAL, at 352
            011B 0005 00000001 00000168     YResolution, RATIONAL, at 360
            0128 0003 00000001 00020000     ResolutionUnit, SHORT, 2 (inches)
            0201 0004 00000001 00000170     JPEGInterchangeFormat, LONG, 368
            0202 0004 00000001 00000007     JPEGInterchangeFormatLength, LONG, 7
            00000000                        no next IFD
            00000048 00000001               352: 72/1
            00000048 00000001               360: 72/1
            FFD8 010203 FFD9                368: the thumbnail, SOI to EOI
            """)
        #expect(Array(tiff[262...]) == expected, "got \(tiff[262...].map { String($0, radix: 16) })")
        let segment = try #require(try acmeMetadata(thumbnail: thumbnail).app1Segment())
        #expect(Array(segment[..<4]) == hex("FFE1 017F"), "2 + 6 + 375 bytes")
        #expect(Array(segment[10...]) == tiff)
    }

    /// A TIFF structure read as a reader would: big-endian, offsets from its first byte; a
    /// read past the end fails the test instead of crashing it.
    struct TIFFReader {
        var bytes: [UInt8]
        struct Entry { var type: Int, count: Int, value: Int, valueOffset: Int }
        func u16(_ at: Int) throws -> Int {
            try #require(at >= 0 && at + 2 <= bytes.count, "offset \(at) is past the \(bytes.count) bytes")
            return Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) throws -> Int { try u16(at) << 16 | u16(at + 2) }
        /// The directory at `offset`: its entries by tag (a SHORT's value in its first two
        /// bytes), and the next directory's offset.
        func directory(at offset: Int) throws -> (entries: [Int: Entry], next: Int) {
            let count = try u16(offset)
            var entries: [Int: Entry] = [:]
            for i in 0..<count {
                let at = offset + 2 + 12 * i
                let type = try u16(at + 2)
                entries[try u16(at)] = Entry(type: type, count: try u32(at + 4),
                                             value: type == 3 ? try u16(at + 8) : try u32(at + 8), valueOffset: try u32(at + 8))
            }
            return (entries, try u32(offset + 2 + 12 * count))
        }
        func rational(at offset: Int) throws -> [Int] { [try u32(offset), try u32(offset + 4)] }
    }

    /// A real thumbnail, found the way a reader finds it: header, IFD0, its next offset, IFD1.
    @Test(arguments: 1...8)
    func ifd1LocatesTheThumbnail(_ orientation: Int) throws {
        let picture = try Self.quadrantFrame()
        let thumbnail = try ExifMetadata.thumbnailJPEG(for: picture, owner: "ExifThumbnailTests")
        let metadata = ExifMetadata(orientation: orientation, make: nil, model: "Quadrants", dateTimeOriginal: "2026:02:03 04:05:06",
                                    offsetTimeOriginal: nil, pixelWidth: 320, pixelHeight: 240, thumbnail: thumbnail)
        let segment = try #require(metadata.app1Segment())
        #expect(segment.count - 2 == Int(segment[2]) << 8 | Int(segment[3]), "the length field counts the rest")
        let tiff = TIFFReader(bytes: Array(segment[10...]))
        #expect(Array(tiff.bytes[..<4]) == Array("MM".utf8) + [0, 42])
        let ifd0 = try tiff.directory(at: tiff.u32(4))
        #expect(ifd0.entries[0x0112]?.value == orientation)
        let exif = try tiff.directory(at: try #require(ifd0.entries[0x8769]).value)
        #expect(exif.next == 0 && exif.entries[0xA002]?.value == 320, "the Exif IFD is still found and ends its chain")
        try #require(ifd0.next > 8 && ifd0.next % 2 == 0, "IFD0 links to IFD1 at \(ifd0.next)")
        let ifd1 = try tiff.directory(at: ifd0.next)
        #expect(ifd1.next == 0, "IFD1 is the last")
        #expect(ifd1.entries.keys.sorted() == [0x0103, 0x0112, 0x011A, 0x011B, 0x0128, 0x0201, 0x0202])
        let e = ifd1.entries
        #expect(e[0x0103]?.type == 3 && e[0x0103]?.value == 6, "Compression: JPEG")
        #expect(e[0x0112]?.type == 3 && e[0x0112]?.value == orientation, "the photo's orientation")
        for tag in [0x011A, 0x011B] {
            let entry = try #require(e[tag])
            let resolution = try tiff.rational(at: entry.valueOffset)
            #expect(entry.type == 5 && entry.count == 1 && resolution == [72, 1], "tag \(tag): 72/1")
        }
        #expect(e[0x0128]?.type == 3 && e[0x0128]?.value == 2, "inches")
        let start = try #require(e[0x0201]), length = try #require(e[0x0202])
        #expect(start.type == 4 && length.type == 4 && length.value == thumbnail.count)
        try #require(start.value + length.value <= tiff.bytes.count)
        let stored = Array(tiff.bytes[start.value..<(start.value + length.value)])
        #expect(stored == thumbnail)
        #expect(Array(stored.prefix(2)) == [0xFF, 0xD8] && Array(stored.suffix(2)) == [0xFF, 0xD9], "SOI … EOI")
        #expect(start.value + length.value == tiff.bytes.count, "the thumbnail ends the segment")
    }

    /// Exif 2.32 §4.5.5: a compressed thumbnail records no APPn or COM marker; the tables and
    /// the scan stay as they are.
    @Test func applicationAndCommentSegmentsAreRemoved() throws {
        let jpeg = hex("FFD8" + "FFE0 0007 4A46494600" + "FFDB 0004 ABCD" + "FFE1 0004 EEEE" + "FFFE 0005 414243"
                       + "FFEF 0002" + "FFC0 0004 1234" + "FFDA 0002 5678 FFD9")
        #expect(JPEGHeader.removingApplicationSegments(from: jpeg) == hex("FFD8 FFDB 0004 ABCD FFC0 0004 1234 FFDA 0002 5678 FFD9"))
        #expect(JPEGHeader.removingApplicationSegments(from: hex("FFD9 0000")) == nil, "no SOI")
        #expect(JPEGHeader.removingApplicationSegments(from: hex("FFD8 FFE0 0040 00")) == nil, "truncated")
    }

    /// The thumbnail of a 1080p NV12 frame: 160x90 in its baseline frame header, no APPn or
    /// COM segment, a few kilobytes.
    @Test func thumbnailJPEGIsSmallBaselineAndHasNoApplicationSegments() throws {
        let y = (0..<(1920 * 1080)).map { UInt8(truncatingIfNeeded: $0 % 1920 / 8) }
        let uv = [UInt8](repeating: 128, count: 1920 * 540)
        let hd = Self.frame([y, uv], width: 1920, height: 1080, pixelFormat: .nv12)
        let jpeg = try ExifMetadata.thumbnailJPEG(for: hd, owner: "ExifThumbnailTests")
        #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8] && Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        let markers = jpegHeaderMarkers(jpeg)
        #expect(!markers.contains { (0xE0...0xEF).contains($0) || $0 == 0xFE }, "markers \(markers.map { String($0, radix: 16) })")
        #expect(markers.contains(0xC0) && markers.last == 0xDA, "baseline (SOF0), then the scan")
        let sof = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        let (height, width) = (Int(jpeg[sof + 5]) << 8 | Int(jpeg[sof + 6]), Int(jpeg[sof + 7]) << 8 | Int(jpeg[sof + 8]))
        #expect(width == 160 && height == 90)
        #expect(jpeg.count < 8_000, "\(jpeg.count) bytes")
    }

    @Test func thumbnailJPEGRefusesABadSizeOrQuality() throws {
        let picture = try Self.quadrantFrame()
        for (side, quality) in [(0, 75), (160, 0), (160, 101)] {
            #expect(throws: PhotoError.self, "longest side \(side), quality \(quality)") {
                do {
                    _ = try ExifMetadata.thumbnailJPEG(for: picture, longestSide: side, quality: quality, owner: "Thumbs")
                } catch let error as PhotoError {
                    #expect(error.code == .encodingFailed && error.message.hasPrefix("Thumbs:"), "\(error)")
                    throw error
                }
            }
        }
    }

    /// 65,535 bytes of segment after its marker at most: the thumbnail's room is what the
    /// rest leaves, and one byte more gives no segment.
    @Test func aThumbnailTooLargeForTheSegmentGivesNoSegment() throws {
        var metadata = try acmeMetadata(thumbnail: nil)
        // 65,535 - 2 (length) - 6 (Exif\0\0) - 262 (header, IFD0, Exif IFD) - 106 (IFD1).
        #expect(metadata.maximumThumbnailByteCount == 65_159)
        metadata.thumbnail = [0xFF, 0xD8] + [UInt8](repeating: 0, count: 70_000) + [0xFF, 0xD9]
        #expect(metadata.app1Segment() == nil, "a 70 KB thumbnail does not fit")
        #expect(metadata.maximumThumbnailByteCount == 65_159, "the room does not depend on the thumbnail")

        metadata.thumbnail = [0xFF, 0xD8] + [UInt8](repeating: 0, count: 65_159 - 4) + [0xFF, 0xD9]
        let largest = try #require(metadata.app1Segment(), "exactly maximumThumbnailByteCount fits")
        #expect(largest.count == 2 + 65_535 && Array(largest[..<4]) == [0xFF, 0xE1, 0xFF, 0xFF])
        metadata.thumbnail?.insert(0, at: 2)
        #expect(metadata.app1Segment() == nil, "one byte more does not")
    }

    // MARK: Independent readers

    /// A 320x240 I420 picture in four quadrants: red top left, green top right, blue bottom
    /// left, white bottom right (BT.601 video range, as the test pattern's markers).
    static func quadrantFrame() throws -> VideoFrame {
        let (width, height) = (320, 240)
        let colours: [(y: UInt8, u: UInt8, v: UInt8)] = [(81, 90, 240), (145, 54, 34), (41, 240, 110), (235, 128, 128)]
        func quadrant(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Int { (y >= h / 2 ? 2 : 0) + (x >= w / 2 ? 1 : 0) }
        var bytes: [UInt8] = []
        for y in 0..<height { for x in 0..<width { bytes.append(colours[quadrant(x, y, width, height)].y) } }
        for y in 0..<(height / 2) { for x in 0..<(width / 2) { bytes.append(colours[quadrant(x, y, width / 2, height / 2)].u) } }
        for y in 0..<(height / 2) { for x in 0..<(width / 2) { bytes.append(colours[quadrant(x, y, width / 2, height / 2)].v) } }
        return try VideoFrame(copying: bytes, width: width, height: height, pixelFormat: .i420, timestamp: 0, sequenceNumber: 0)
    }

    typealias RGB = (r: Int, g: Int, b: Int)

    /// The stored pixels' corners as ffmpeg decodes them, applying no orientation: the mean of
    /// 8x8 patches 4 pixels in from each corner, top left, top right, bottom left, bottom right.
    func storedCorners(_ path: String, width: Int, height: Int) throws -> [RGB] {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-noautorotate", "-i", path,
                                        "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(result.status == 0, "ffmpeg failed on \(path): \(result.error)")
        let pixels = [UInt8](result.outputData)
        try #require(pixels.count == width * height * 3, "decoded \(pixels.count) bytes, expected \(width)x\(height) RGB")
        func mean(x: Int, y: Int) -> RGB {
            var sum = (r: 0, g: 0, b: 0)
            for dy in 0..<8 { for dx in 0..<8 {
                let i = ((y + dy) * width + x + dx) * 3
                sum = (sum.r + Int(pixels[i]), sum.g + Int(pixels[i + 1]), sum.b + Int(pixels[i + 2]))
            } }
            return (sum.r / 64, sum.g / 64, sum.b / 64)
        }
        return [mean(x: 4, y: 4), mean(x: width - 12, y: 4), mean(x: 4, y: height - 12), mean(x: width - 12, y: height - 12)]
    }

    /// The name of a quadrant colour, or "-".
    static func colourName(_ c: RGB) -> String {
        if c.r > 150 && c.g < 90 && c.b < 90 { return "red" }
        if c.g > 150 && c.r < 90 && c.b < 90 { return "green" }
        if c.b > 150 && c.r < 90 && c.g < 90 { return "blue" }
        if c.r > 200 && c.g > 200 && c.b > 200 { return "white" }
        return "-"
    }

    /// A JPEG photo with a thumbnail, as PhotoOutput would write it, in each Exif orientation:
    /// exiftool extracts the very bytes embedded and reports the orientation in IFD0 and IFD1;
    /// ffmpeg decodes the extracted thumbnail at 160x120 with the photo's corners, unrotated.
    @Test(arguments: 1...8)
    func exiftoolAndFFmpegReadTheThumbnailBack(_ orientation: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (photoPath, thumbnailPath) = (dir.file("photo.jpg"), dir.file("thumb.jpg"))
        let picture = try Self.quadrantFrame()
        let thumbnail = try ExifMetadata.thumbnailJPEG(for: picture, owner: "ExifThumbnailTests")
        let metadata = ExifMetadata(orientation: orientation, make: "MovieRecorder", model: "quadrants",
                                    dateTimeOriginal: "2026:02:03 04:05:06", offsetTimeOriginal: "+00:00",
                                    pixelWidth: 320, pixelHeight: 240, thumbnail: thumbnail)
        let main = try JPEGEncoder.encode(picture, quality: 90, owner: "ExifThumbnailTests")
        let segment = try #require(metadata.app1Segment())
        let photo = try #require(JPEGHeader.insertingFirstSegment(segment, replacingJFIFIn: main))
        try Data(photo).write(to: URL(fileURLWithPath: photoPath))

        let extracted = try run("exiftool", ["-b", "-ThumbnailImage", photoPath])
        #expect(extracted.status == 0, "exiftool -b -ThumbnailImage: \(extracted.error)")
        #expect([UInt8](extracted.outputData) == thumbnail, "exiftool extracts \(extracted.outputData.count) bytes, we embedded \(thumbnail.count)")
        try extracted.outputData.write(to: URL(fileURLWithPath: thumbnailPath))

        let tags = try run("exiftool", ["-j", "-n", "-G1", "-IFD1:Orientation", "-IFD0:Orientation", "-ThumbnailLength",
                                        "-ThumbnailOffset", "-IFD1:Compression", photoPath])
        #expect(tags.status == 0 && !tags.output.contains("Warning"), "exiftool: \(tags.error) \(tags.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: tags.outputData) as? [[String: Any]]).first
        #expect(json?["IFD0:Orientation"] as? Int == orientation && json?["IFD1:Orientation"] as? Int == orientation,
                "\(tags.output)")
        #expect(json?["IFD1:ThumbnailLength"] as? Int == thumbnail.count && json?["IFD1:Compression"] as? Int == 6)
        let offsetInFile = try #require(json?["IFD1:ThumbnailOffset"] as? Int)
        #expect(Array(photo[offsetInFile..<(offsetInFile + thumbnail.count)]) == thumbnail,
                "exiftool's offset counts from the file's start: \(offsetInFile)")

        let stream = try #require(try ffprobeStreams(thumbnailPath).first)
        #expect(stream.codec_name == "mjpeg" && stream.width == 160 && stream.height == 120, "\(stream)")
        let photoCorners = try storedCorners(photoPath, width: 320, height: 240)
        let thumbnailCorners = try storedCorners(thumbnailPath, width: 160, height: 120)
        #expect(photoCorners.map(Self.colourName) == ["red", "green", "blue", "white"], "\(photoCorners)")
        #expect(thumbnailCorners.map(Self.colourName) == ["red", "green", "blue", "white"], "\(thumbnailCorners)")
        for (p, t) in zip(photoCorners, thumbnailCorners) {
            #expect(abs(p.r - t.r) <= 12 && abs(p.g - t.g) <= 12 && abs(p.b - t.b) <= 12, "photo \(p), thumbnail \(t)")
        }
    }
}
