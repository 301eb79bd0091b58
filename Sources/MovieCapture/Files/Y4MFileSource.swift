import MovieContainer
import MoviePlatform
/// The stream header of a YUV4MPEG2 (`.y4m`) file: the picture size and frame rate, for 8-bit
/// progressive 4:2:0 video.
///
/// The header is one line: `YUV4MPEG2`, then parameters separated by spaces, each a letter and
/// a value — `W` width, `H` height, `F` rate as `num:den`, `I` interlacing, `A` pixel aspect
/// ratio, `C` colour space, `X` application data. Every frame is a `FRAME` line, which may
/// carry parameters of its own, followed by the Y, U and V planes.
package struct Y4MHeader: Hashable, Sendable {
    package var width: Int
    package var height: Int
    package var frameRate: FrameRate
    /// The length of the header line, newline included: the offset of the first `FRAME`.
    package var length: Int

    /// The longest header line this reader accepts.
    package static let maximumLength = 4096

    /// The chroma tags that mean 8-bit 4:2:0, which differ only in chroma siting.
    package static let supportedChroma: Set<String> = ["420jpeg", "420paldv", "420mpeg2", "420"]

    /// Parses the header at the start of `bytes`.
    /// - Parameter path: the file's path, for errors.
    /// - Throws: ``SourceError`` with ``SourceError/Code/malformedFile`` or
    ///   ``SourceError/Code/unsupportedFormat``.
    package init(parsing bytes: [UInt8], path: String) throws(SourceError) {
        func malformed(_ message: String) -> SourceError {
            SourceError(.malformedFile, source: path, step: "reading the YUV4MPEG2 header", message)
        }
        func unsupported(_ message: String) -> SourceError {
            SourceError(.unsupportedFormat, source: path, step: "reading the YUV4MPEG2 header", message)
        }
        let magic = Array("YUV4MPEG2".utf8)
        guard bytes.count > magic.count, bytes.starts(with: magic), bytes[magic.count] == 0x20 || bytes[magic.count] == 0x0A else {
            throw malformed("it does not start with \"YUV4MPEG2 \"; is it a .y4m file?")
        }
        guard let end = bytes.prefix(Self.maximumLength).firstIndex(of: 0x0A) else {
            throw malformed("its header line has no end within \(Self.maximumLength) bytes")
        }
        length = end + 1
        var width: Int?, height: Int?, rate: FrameRate?
        for token in bytes[magic.count..<end].split(separator: 0x20) {
            let value = String(decoding: token.dropFirst(), as: UTF8.self)
            switch token.first {
            case UInt8(ascii: "W"), UInt8(ascii: "H"):
                guard let size = Int(value), size > 0, size <= 16_384 else {
                    throw malformed("its \(token.first == UInt8(ascii: "W") ? "width" : "height") \"\(value)\" is not a number from 1 to 16384")
                }
                if token.first == UInt8(ascii: "W") { width = size } else { height = size }
            case UInt8(ascii: "F"):
                let parts = value.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let frames = UInt32(parts[0]), let seconds = UInt32(parts[1]), frames > 0, seconds > 0 else {
                    throw malformed("its frame rate \"F\(value)\" is not two positive numbers as F<frames>:<seconds>")
                }
                rate = FrameRate(frames: frames, seconds: seconds)
            case UInt8(ascii: "I"):
                switch value {
                case "p", "?": break
                case "t", "b":
                    throw unsupported("it is interlaced (\(value == "t" ? "top" : "bottom") field first); only progressive video is read — deinterlace it first, for example with ffmpeg -vf yadif")
                case "m":
                    throw unsupported("it mixes interlaced and progressive frames (Im); only progressive video is read")
                default:
                    throw malformed("its interlacing \"I\(value)\" is not one of Ip, It, Ib, Im or I?")
                }
            case UInt8(ascii: "C"):
                guard Self.supportedChroma.contains(value) else {
                    throw unsupported("its colour space C\(value) is not 8-bit 4:2:0 (C420, C420jpeg, C420paldv or C420mpeg2); convert it, for example with ffmpeg -pix_fmt yuv420p")
                }
            default:
                break  // A (aspect ratio), X (application data) and unknown tags do not change the pictures.
            }
        }
        guard let width, let height else {
            throw malformed("its header has no \(width == nil ? "width (W)" : "height (H)")")
        }
        guard let rate else { throw malformed("its header has no frame rate (F)") }
        self.width = width
        self.height = height
        frameRate = rate
    }
}

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
