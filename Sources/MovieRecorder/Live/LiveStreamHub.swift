import MovieContainer
import MoviePlatform

/// The live stream as its readers see it: the newest chunks for the fMP4 stream, and a window
/// of segments and parts for LL-HLS. The stream's thread publishes into it; readers (server
/// connections, the HLS directory writer) wait on it, signalled, with deadlines.
///
/// Everything is bounded: a few seconds of chunks and ``segmentWindow`` segments. A reader
/// that falls out of the window skips ahead to the newest independent chunk.
final class LiveStreamHub: @unchecked Sendable {
    // @unchecked: every stored property below `lock` is read and written only under it.

    /// One `moof` + `mdat` (with its `prft`, and an `emsg` where the orientation changed).
    struct Chunk {
        let index: Int
        let bytes: [UInt8]
        /// Without the audio, when the stream has audio.
        let pictureBytes: [UInt8]?
        let isIndependent: Bool
        let orientation: VideoOrientation
        /// The first video sample's decode time, in the stream's video timescale.
        let time: UInt64
    }

    struct Part {
        var bytes: [UInt8] = []
        var isIndependent: Bool
        var start: UInt64
        var end: UInt64
        var isComplete = false
    }

    struct Segment {
        let sequenceNumber: Int
        /// Which initialization segment its parts need.
        let initialization: Int
        /// Whether the initialization changed since the segment before (`EXT-X-DISCONTINUITY`).
        let isDiscontinuity: Bool
        /// When its first picture was captured, nanoseconds since 1970 UTC.
        let captureTime: UInt64
        let start: UInt64
        var parts: [Part] = []
        var isComplete = false
        /// The start of the next segment once it is known, else the end of the last part.
        var end: UInt64
        var bytes: [UInt8] { parts.flatMap(\.bytes) }
    }

    /// What stays the same for one stream: the picture's format and the initialization
    /// segments.
    struct Stream {
        let id: Int
        let start: LiveStreamStart
        let width: Int
        let height: Int
        var codecs: String { start.codecs }
        var timescale: UInt32 { start.timescale }
    }

    let segmentWindow = 8
    let partTarget: Double
    let targetDuration: Int

    let lock = ConditionLock()
    private(set) var stream: Stream?
    /// The last stream begun, kept after it ends so its readers can take what is left.
    private(set) var lastStream: Stream?
    private var streamCount = 0
    private(set) var chunks: [Chunk] = []
    private var nextChunkIndex = 0
    private(set) var segments: [Segment] = []
    private var nextSequenceNumber = 0
    /// Initialization segments by number, for HLS (their matrices turned); the last few kept.
    private(set) var initializations: [Int: [UInt8]] = [:]
    private var initializationCount = 0
    private(set) var isShutDown = false
    /// The last stream's timescale and codecs, kept for the playlist after it ends.
    private(set) var lastTimescale: UInt32?
    private(set) var lastCodecs = ""
    /// Discontinuities in segments that left the window: HLS's discontinuity sequence.
    private(set) var discontinuitySequence = 0

    init(partTarget: Double, targetDuration: Int) {
        self.partTarget = partTarget
        self.targetDuration = targetDuration
    }

    // MARK: Publishing (the stream's thread)

    /// Starts a new stream: readers of the previous one reach its end.
    func begin(_ start: LiveStreamStart, width: Int, height: Int) {
        lock.withLock {
            streamCount += 1
            stream = Stream(id: streamCount, start: start, width: width, height: height)
            lastStream = stream
            chunks.removeAll()
            lastTimescale = start.timescale
            lastCodecs = start.codecs
            lock.broadcast()
        }
    }

    /// Adds an HLS initialization segment; the next segment started uses it, after a
    /// discontinuity. Returns its number.
    @discardableResult
    func addInitialization(_ bytes: [UInt8]) -> Int {
        lock.withLock {
            initializationCount += 1
            initializations[initializationCount] = bytes
            initializations = initializations.filter { $0.key > initializationCount - 4 }
            return initializationCount
        }
    }

    /// Adds a chunk. `startsSegment` (an IDR) closes the segment in progress; `startsPart` closes
    /// the part in progress. `end` is where the chunk's media ends on the video timeline.
    func append(_ chunk: [UInt8], pictureBytes: [UInt8]?, time: UInt64, end: UInt64, isIndependent: Bool, startsSegment: Bool, startsPart: Bool,
                orientation: VideoOrientation, captureTime: UInt64) {
        lock.withLock {
            chunks.append(Chunk(index: nextChunkIndex, bytes: chunk, pictureBytes: pictureBytes, isIndependent: isIndependent, orientation: orientation, time: time))
            nextChunkIndex += 1
            trimChunks()
            if startsSegment || segments.isEmpty {
                startSegment(at: time, captureTime: captureTime)
            } else if startsPart {
                closePart(at: time)
            }
            let last = segments.count - 1
            if startsSegment || startsPart || segments[last].parts.isEmpty {
                segments[last].parts.append(Part(isIndependent: isIndependent, start: time, end: end))
            }
            segments[last].parts[segments[last].parts.count - 1].bytes += chunk
            segments[last].parts[segments[last].parts.count - 1].end = end
            segments[last].end = end
            lock.broadcast()
        }
    }

    /// Marks the part in progress complete: its last chunk is in.
    func completePart() {
        lock.withLock {
            guard let last = segments.indices.last, let part = segments[last].parts.indices.last else { return }
            segments[last].parts[part].isComplete = true
            lock.broadcast()
        }
    }

    /// Marks the segment in progress complete: the next chunk starts a new one (so a playlist's
    /// preload hint names that one's first part).
    func completeSegment() {
        lock.withLock {
            guard let last = segments.indices.last else { return }
            closePart(at: segments[last].end)
            segments[last].isComplete = true
            lock.broadcast()
        }
    }

    /// Ends the stream: its readers reach the end; HLS goes on after a discontinuity when the
    /// next stream begins.
    func end() {
        lock.withLock {
            closePart(at: segments.last?.end ?? 0)
            if let last = segments.indices.last { segments[last].isComplete = true }
            stream = nil
            lock.broadcast()
        }
    }

    /// Wakes every waiting reader, so it checks whether it was cancelled.
    func wakeReaders() { lock.withLock { lock.broadcast() } }

    /// Ends every wait for good: the server or the output is going away.
    func shutDown() {
        lock.withLock {
            isShutDown = true
            lock.broadcast()
        }
    }

    private func startSegment(at time: UInt64, captureTime: UInt64) {
        closePart(at: time)
        if let last = segments.indices.last {
            segments[last].isComplete = true
            segments[last].end = max(segments[last].end, time)
        }
        let previous = segments.last?.initialization
        segments.append(Segment(sequenceNumber: nextSequenceNumber, initialization: initializationCount,
                                isDiscontinuity: previous != nil && previous != initializationCount,
                                captureTime: captureTime, start: time, end: time))
        nextSequenceNumber += 1
        while segments.count > segmentWindow {
            // A segment leaving the window takes its discontinuity into the sequence number.
            if segments.removeFirst().isDiscontinuity { discontinuitySequence += 1 }
        }
    }

    private func closePart(at time: UInt64) {
        guard let last = segments.indices.last, let part = segments[last].parts.indices.last else { return }
        segments[last].parts[part].isComplete = true
    }

    /// Keeps the chunks of the two newest segments' worth of time, and at most 300.
    private func trimChunks() {
        let keepFrom = segments.count >= 2 ? segments[segments.count - 2].start : 0
        if let first = chunks.firstIndex(where: { $0.time >= keepFrom }), first > 0 { chunks.removeFirst(first) }
        if chunks.count > 300 { chunks.removeFirst(chunks.count - 300) }
    }
}
