import MovieContainer
import MoviePlatform

/// A video source that reads the pictures of a YUV4MPEG2 (`.y4m`) file, such as
/// `ffmpeg -i in.mov -pix_fmt yuv420p out.y4m` writes.
///
/// Frames are lent straight from the file's pages (mapped read-only, at most `bufferCount` at
/// a time), or, where the file cannot be mapped, read with `pread` into pooled I420 pictures;
/// either way without conversion. They are delivered as fast as the handler returns, stamped
/// `start + n × frame duration` from the header's rate. When `bufferCount` pictures are still
/// held by consumers, the source waits for one. At the end of the file it delivers
/// ``VideoSourceEvent/ended``; a last frame cut short is reported as
/// ``VideoSourceEvent/dropped(count:)`` first. A damaged frame header or a read error ends the
/// run with ``VideoSourceEvent/interrupted(_:)``.
///
/// `start(handler:)` while reading throws ``SourceError/Code/alreadyRunning``; after ``stop()``,
/// or after the end, it starts over from the first frame with a new start time.
public final class Y4MFileSource: VideoSource {
    /// The file's path.
    public let path: String
    /// The file's path, as the source's name.
    public var name: String { path }
    /// The picture size and frame rate from the file's header, in I420.
    public let format: VideoFormat
    /// Always `false`: frames are delivered as fast as the handler returns.
    public let isLive = false
    /// The number of pictures consumers may hold at once before the source waits.
    public let bufferCount: Int

    private let header: Y4MHeader
    private let thread: SourceThread
    /// Whether pictures may be lent from a mapping (tests turn it off to exercise the reads
    /// used where mapping fails).
    package let allowsMapping: Bool

    /// Opens a YUV4MPEG2 file and reads its header.
    /// - Parameters:
    ///   - path: The file's path.
    ///   - bufferCount: The number of pictures lent out at once, at least 1. Three keep an
    ///     encoder busy (one being encoded, one waiting, one being read) without holding more
    ///     memory than needed.
    /// - Throws: `FileError` when the file cannot be read; ``SourceError`` when its header is
    ///   malformed (``SourceError/Code/malformedFile``) or describes video other than 8-bit
    ///   progressive 4:2:0 (``SourceError/Code/unsupportedFormat``).
    public convenience init(path: String, bufferCount: Int = 3) throws {
        try self.init(path: path, bufferCount: bufferCount, allowsMapping: true)
    }

    package init(path: String, bufferCount: Int, allowsMapping: Bool) throws {
        guard bufferCount >= 1 else {
            throw SourceError(.invalidConfiguration, source: path, step: "creating", "buffer count \(bufferCount) must be at least 1")
        }
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        header = try Y4MHeader(parsing: try file.read(at: 0, count: Y4MHeader.maximumLength), path: path)
        self.path = path
        self.bufferCount = bufferCount
        format = VideoFormat(width: header.width, height: header.height, pixelFormat: .i420, frameRate: header.frameRate)
        thread = SourceThread(sourceName: path, threadName: "y4m reader")
        self.allowsMapping = allowsMapping
    }

    /// Opens the file again and starts reading on a dedicated thread.
    /// - Throws: `FileError` when the file cannot be opened; ``SourceError`` with
    ///   ``SourceError/Code/alreadyRunning`` while reading.
    public func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        let header = self.header, path = self.path, allowsMapping = self.allowsMapping
        let frameSize = PixelFormat.i420.byteCount(width: header.width, height: header.height)
        let pool = PixelBufferPool(bufferSize: frameSize, count: bufferCount)
        let budget = MappingBudget(limit: bufferCount)
        do {
            try thread.start { run in
                defer { try? file.close() }
                let timeline = CaptureTimeline(start: MonotonicClock.now(), count: UInt64(header.frameRate.frames),
                                               seconds: UInt64(header.frameRate.seconds))
                func interrupt(_ message: String) { run.finish { handler(.interrupted(InterruptionReason(source: path, message: message))) } }
                var offset = UInt64(header.length)
                var n: UInt64 = 0
                var mappable = allowsMapping
                let frameTag = Array("FRAME".utf8)
                while !run.isStopRequested {
                    do {
                        // The FRAME line: usually 6 bytes, but it may carry parameters.
                        var line = try file.read(at: offset, count: 64)
                        if line.isEmpty { return run.finish { handler(.ended) } }
                        if line.count < frameTag.count, frameTag.starts(with: line) {  // Cut off inside "FRAME".
                            handler(.dropped(count: 1))
                            return run.finish { handler(.ended) }
                        }
                        var end = line.firstIndex(of: 0x0A)
                        if end == nil, line.count == 64 {
                            line = try file.read(at: offset, count: Y4MHeader.maximumLength)
                            end = line.firstIndex(of: 0x0A)
                        }
                        guard line.starts(with: frameTag), line.count == frameTag.count || line[frameTag.count] == 0x20
                                || line[frameTag.count] == 0x0A else {
                            return interrupt("frame \(n) at byte \(offset) does not start with \"FRAME\"; the file is damaged")
                        }
                        guard let end else {
                            if line.count < Y4MHeader.maximumLength {  // Cut off inside the FRAME line.
                                handler(.dropped(count: 1))
                                return run.finish { handler(.ended) }
                            }
                            return interrupt("frame \(n) at byte \(offset) has a FRAME line longer than \(Y4MHeader.maximumLength) bytes; the file is damaged")
                        }
                        let pictureOffset = offset + UInt64(end + 1)
                        guard pictureOffset + UInt64(frameSize) <= file.size else {  // The last frame is cut short.
                            handler(.dropped(count: 1))
                            return run.finish { handler(.ended) }
                        }
                        let timestamp = timeline.time(of: n)
                        // Zero-copy: the picture is lent straight from the page cache, mapped and
                        // faulted in here, so the encoder's copy is the only one. A file that
                        // cannot be mapped is read into pooled buffers instead.
                        run.wakeOnStop(budget.changed)
                        if mappable, budget.take(unless: { run.isStopRequested }) {
                            if let region = file.map(at: pictureOffset, count: frameSize, budget: budget) {
                                handler(.frame(VideoFrame(packed: UnsafeMutableRawPointer(mutating: region.base),
                                                          width: header.width, height: header.height, pixelFormat: .i420,
                                                          timestamp: timestamp, sequenceNumber: n, storage: region)))
                                offset = pictureOffset + UInt64(frameSize)
                                n += 1
                                continue
                            }
                            budget.giveBack()
                            mappable = false
                        }
                        if run.isStopRequested { return }
                        guard let lease = pool.lease(live: false, run: run) else { return }
                        let count = try file.read(at: pictureOffset,
                                                  into: UnsafeMutableRawBufferPointer(start: lease.base, count: frameSize))
                        guard count == frameSize else {  // The file shrank while reading.
                            handler(.dropped(count: 1))
                            return run.finish { handler(.ended) }
                        }
                        handler(.frame(VideoFrame(packed: lease.base, width: header.width, height: header.height,
                                                  pixelFormat: .i420, timestamp: timestamp, sequenceNumber: n,
                                                  storage: lease)))
                        offset = pictureOffset + UInt64(frameSize)
                        n += 1
                    } catch {
                        return interrupt("frame \(n) could not be read: \(error)")
                    }
                }
            }
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Stops reading and waits for the reading thread to end.
    public func stop() { thread.stop() }
}
