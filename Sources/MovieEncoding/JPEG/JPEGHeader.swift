import MovieContainer
import MoviePlatform
import MovieCapture

/// How a JPEG file begins (ITU-T T.81 Annex B): SOI, then marker segments, each `FF xx` and a
/// 2-byte length that counts itself, up to the start of scan.
package enum JPEGHeader {
    /// Returns `jpeg` with `segment` as the first segment after SOI and every JFIF APP0 segment
    /// removed (Exif 2.32 §4.5.4: an Exif file starts with APP1 right after SOI), or `nil`
    /// when `jpeg` does not begin with SOI or its header segments run past its end.
    package static func insertingFirstSegment(_ segment: [UInt8], replacingJFIFIn jpeg: [UInt8]) -> [UInt8]? {
        rebuilding(jpeg, firstSegment: segment) { segment in
            segment.count >= 9 && segment[segment.startIndex + 1] == 0xE0
                && Array(segment.dropFirst(4).prefix(5)) == Array("JFIF".utf8) + [0]
        }
    }

    /// Returns `jpeg` without its application (APP0–APP15) and comment (COM) segments, as an
    /// Exif compressed thumbnail must be (Exif 2.32 §4.5.5: no APPn or COM marker), or `nil`
    /// when `jpeg` does not begin with SOI or its header segments run past its end.
    package static func removingApplicationSegments(from jpeg: [UInt8]) -> [UInt8]? {
        rebuilding(jpeg, firstSegment: []) { segment in
            let marker = segment[segment.startIndex + 1]
            return (0xE0...0xEF).contains(marker) || marker == 0xFE
        }
    }

    /// SOI, `firstSegment`, the header segments `isRemoved` does not select (each passed from
    /// its `FF`), then the rest of `jpeg` from the start of scan.
    private static func rebuilding(_ jpeg: [UInt8], firstSegment: [UInt8],
                                   removing isRemoved: (ArraySlice<UInt8>) -> Bool) -> [UInt8]? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var result: [UInt8] = [0xFF, 0xD8] + firstSegment
        result.reserveCapacity(jpeg.count + firstSegment.count)
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            guard length >= 2, i + 2 + length <= jpeg.count else { return nil }
            let segment = jpeg[i..<(i + 2 + length)]
            if !isRemoved(segment) { result += segment }
            i += 2 + length
        }
        result += jpeg[i...]
        return result
    }
}
