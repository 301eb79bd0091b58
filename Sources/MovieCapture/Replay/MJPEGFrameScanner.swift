import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Finds the pictures of a Motion-JPEG stream (JPEG pictures one after another, as `ffmpeg -f
/// mjpeg` writes and cameras send) in a file: each from its start-of-image marker to its
/// end-of-image marker. Marker segments are skipped by their lengths, so an end marker inside
/// an embedded thumbnail does not end the picture; in the coded data a 0xFF byte is always
/// followed by 0x00 or a marker, so the first end marker there is the picture's. A start marker
/// met before it ends a picture that was cut short (its decoder then finds it damaged).
package struct MJPEGFrameScanner {
    private let file: RandomAccessFile
    private var chunk: [UInt8] = []
    private var chunkStart: UInt64 = 0
    private static let chunkSize = 256 * 1024

    package init(file: RandomAccessFile) { self.file = file }

    /// The next picture at or after `offset`: where it starts, its length, and whether bytes
    /// that were no picture came before it (damage in the stream; zero or 0xFF padding is not).
    /// `nil` at the end of the file. A picture the file cuts short runs to the end of the file,
    /// and its decoder finds it damaged.
    package mutating func nextPicture(from offset: UInt64) throws -> (offset: UInt64, count: Int, skipped: Bool)? {
        guard let start = try find(start: offset) else { return nil }
        let end = try pictureEnd(after: start + 2)
        return (start, Int((end ?? file.size) - start), try !onlyPadding(from: offset, to: start))
    }

    /// Whether the bytes in `from..<to` are all 0x00 or 0xFF, as drivers pad buffers.
    private mutating func onlyPadding(from start: UInt64, to end: UInt64) throws -> Bool {
        var position = start
        while position < end {
            guard let byte = try byte(at: position), byte == 0 || byte == 0xFF else { return false }
            position += 1
        }
        return true
    }

    /// The next "FF D8 FF" (start of image followed by a marker) at or after `offset`.
    private mutating func find(start offset: UInt64) throws -> UInt64? {
        var position = offset
        while let candidate = try nextFF(from: position) {
            if try byte(at: candidate + 1) == 0xD8, try byte(at: candidate + 2) == 0xFF { return candidate }
            position = candidate + 1
        }
        return nil
    }

    /// Just past the end-of-image marker (or at the next start marker), walking the marker
    /// segments up to the scan and then the coded data; `nil` when the file ends first. Damaged
    /// headers (no marker where one must be) end the picture at the next start marker, so one
    /// bad picture does not take the rest of the stream with it.
    private mutating func pictureEnd(after offset: UInt64) throws -> UInt64? {
        var position = offset
        var segmentStart = offset
        // Marker segments: FF, the marker, a big-endian length that counts itself.
        while true {
            // A length that led nowhere: the picture ends at the next start marker after the
            // segment it belongs to.
            guard try byte(at: position) == 0xFF else { return try find(start: segmentStart + 2) }
            segmentStart = position
            guard let marker = try byte(at: position + 1) else { return nil }
            if marker == 0xFF { position += 1; continue }  // fill byte
            if marker == 0xD9 { return position + 2 }
            if marker == 0xD8 { return position }  // the next picture: this one was cut short
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { position += 2; continue }
            guard let high = try byte(at: position + 2), let low = try byte(at: position + 3) else { return nil }
            position += 2 + UInt64(high) << 8 + UInt64(low)
            if marker == 0xDA { break }  // start of scan: coded data follows
        }
        // Coded data (and any later scans): the first FF D9.
        while let candidate = try nextFF(from: position) {
            guard let next = try byte(at: candidate + 1) else { return nil }
            if next == 0xD9 { return candidate + 2 }
            if next == 0xD8 { return candidate }  // the next picture: this one was cut short
            position = candidate + 1
        }
        return nil
    }

    private mutating func nextFF(from offset: UInt64) throws -> UInt64? {
        var position = offset
        while true {
            guard try load(position) else { return nil }
            let index = Int(position - chunkStart)
            let found: Int? = chunk.withUnsafeBytes { bytes in
                memchr(bytes.baseAddress! + index, 0xFF, bytes.count - index).map { $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!) }
            }
            if let found { return chunkStart + UInt64(found) }
            position = chunkStart + UInt64(chunk.count)
        }
    }

    private mutating func byte(at offset: UInt64) throws -> UInt8? {
        guard try load(offset) else { return nil }
        return chunk[Int(offset - chunkStart)]
    }

    /// Makes the chunk hold `offset`; `false` past the end of the file.
    private mutating func load(_ offset: UInt64) throws -> Bool {
        if offset >= chunkStart, offset < chunkStart + UInt64(chunk.count) { return true }
        chunk = try file.read(at: offset, count: Self.chunkSize)
        chunkStart = offset
        return !chunk.isEmpty
    }
}
