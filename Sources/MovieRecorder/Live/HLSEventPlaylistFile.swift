import MovieContainer
import MoviePlatform

/// An `EVENT` playlist on disk that grows at its end: put in place whole once, then each new
/// segment's lines appended and flushed, and `EXT-X-ENDLIST` appended when the stream ends.
///
/// Why appending: an EVENT playlist lists every segment, so writing and flushing it whole at each
/// segment, as the sliding window is written, costs more every second: about 80 bytes a segment,
/// 1.7 MB a second six hours in. RFC 8216bis lets an EVENT playlist change only by lines appended
/// at its end, so appending writes and flushes about 80 bytes a segment however long the event
/// runs. A cap on the segments listed would have bounded the cost too, but by ending long events.
///
/// A web server may read the file while lines are added. Linux's page cache shows a write that
/// stays within one page whole or not at all, but a write across a page boundary can be read cut
/// there; so lines that would cross a 4 KiB boundary start after it, the gap filled with newlines
/// (blank lines, which a playlist may hold).
struct HLSEventPlaylistFile {
    typealias Segment = LiveStreamHub.PlaylistSnapshot.Segment

    /// The playlist's path.
    let path: String
    /// `EXT-X-TARGETDURATION`, which appended lines cannot change.
    private(set) var targetDuration: Int
    private let permissions: UInt32
    /// The file put in place, still open: appends go to it even if another is renamed over its name.
    private var file: RandomAccessFile
    private var size: UInt64
    /// The initialization segment the last segment listed needs: a segment that needs another
    /// gets an `EXT-X-MAP`.
    private var initialization: Int
    /// Renders the lines, as the whole playlist would have them.
    private let renderer: LLHLSPlaylist

    /// Puts a playlist of `segments`, complete and at least one, in place at `path`.
    /// - Throws: ``FileError`` naming the path and the step.
    init(path: String, segments: [Segment], targetDuration: Int, permissions: UInt32) throws {
        renderer = LLHLSPlaylist(snapshot: .init(segments: segments, codecs: "", isLive: true, discontinuitySequence: 0, partTarget: 0,
                                                 targetDuration: targetDuration),
                                 includesParts: false, isEvent: true)
        let bytes = Array(renderer.text.utf8)
        file = try DurableFilePublisher.publishForAppending(bytes, at: path, permissions: permissions)
        self.path = path
        self.targetDuration = targetDuration
        self.permissions = permissions
        size = UInt64(bytes.count)
        initialization = segments.last?.initialization ?? 0
    }

    /// Appends the lines of `segments`, complete, and flushes them.
    /// - Throws: ``FileError`` naming the playlist and the step.
    mutating func append(_ segments: [Segment]) throws {
        guard !segments.isEmpty else { return }
        var lines: [String] = []
        for segment in segments {
            if segment.isDiscontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if segment.initialization != initialization { lines.append("#EXT-X-MAP:URI=\"init-\(segment.initialization).mp4\"") }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + renderer.date(segment.captureTime))
            lines.append("#EXTINF:\(renderer.format(segment.duration)),")
            lines.append("seg-\(segment.sequenceNumber).m4s")
            initialization = segment.initialization
        }
        try write(lines.joined(separator: "\n") + "\n")
    }

    /// Appends `EXT-X-ENDLIST`, flushes it and closes the file.
    /// - Throws: ``FileError`` naming the playlist and the step.
    mutating func end() throws {
        try write("#EXT-X-ENDLIST\n")
        try file.close()
    }

    /// Puts the playlist in place anew with a longer `EXT-X-TARGETDURATION` (a new stream's
    /// segments are longer): the text read back, that line changed. Rare, so written whole.
    /// - Throws: ``FileError`` naming the playlist and the step.
    mutating func raiseTargetDuration(to seconds: Int) throws {
        let text = String(decoding: try named { try file.read(at: 0, count: Int(size)) }, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let line = lines.firstIndex(where: { $0.hasPrefix("#EXT-X-TARGETDURATION:") }) { lines[line] = "#EXT-X-TARGETDURATION:\(seconds)" }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let replacement = try DurableFilePublisher.publishForAppending(bytes, at: path, permissions: permissions)
        try? file.close()
        file = replacement
        size = UInt64(bytes.count)
        targetDuration = seconds
    }

    /// Appends `text` where it cannot be read cut, and flushes it.
    private mutating func write(_ text: String) throws {
        let bytes = Self.keepingWithinAPage(Array(text.utf8), at: size)
        try named {
            try bytes.withUnsafeBytes { try file.write($0, at: size) }
            try file.synchronize()
        }
        size += UInt64(bytes.count)
    }

    /// The page size whose boundaries appended lines do not cross: the smallest Linux has.
    static let pageSize: UInt64 = 4096

    /// `bytes` to append at `offset`, after newlines that move them past the next page boundary
    /// when they would cross it (and fit in a page).
    static func keepingWithinAPage(_ bytes: [UInt8], at offset: UInt64) -> [UInt8] {
        let used = offset % pageSize
        guard used + UInt64(bytes.count) > pageSize, UInt64(bytes.count) <= pageSize else { return bytes }
        return [UInt8](repeating: UInt8(ascii: "\n"), count: Int(pageSize - used)) + bytes
    }

    /// Runs `body`, its errors naming the playlist rather than the hidden name it was written under.
    private func named<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as FileError {
            throw FileError(code: error.code, path: path, step: error.step, errno: error.errno, reason: error.reason)
        }
    }
}
