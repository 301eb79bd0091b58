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
        /// The index of its first chunk.
        let firstChunk: Int
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
        var partTarget: Double { start.partTarget }
        /// HLS's target duration: the longest a segment may last, rounded up.
        var targetDuration: Int { max(1, Int(start.segmentDuration.rounded(.up))) }
    }

    let segmentWindow = 8

    /// Readers that are stopped together (a server's connections, a directory writer): waits
    /// end once their group is cancelled. Its flag is read and written under the hub's lock.
    final class ReaderGroup: @unchecked Sendable {
        // @unchecked: `isCancelled` is only touched under the hub's lock.
        fileprivate(set) var isCancelled = false
        init() {}
    }

    let lock = ConditionLock()
    private(set) var stream: Stream?
    /// The last stream begun, kept after it ends so its readers can take what is left and the
    /// playlist keeps its timescale, codecs and part target.
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
    /// Whether the output stopped streaming (its session stopped, or it was removed from it),
    /// rather than restarting with new inputs: once its stream ends, nothing follows until it is
    /// connected again.
    private var isOutputStopped = false
    /// Discontinuities in segments that left the window: HLS's discontinuity sequence.
    private(set) var discontinuitySequence = 0

    init() {}

    // MARK: Publishing (the stream's thread)

    /// Starts a new stream: readers of the previous one reach its end. Returns the stream's
    /// number, which every later call of its publisher names: a publisher still finishing an
    /// older stream changes nothing.
    func begin(_ start: LiveStreamStart, width: Int, height: Int) -> Int {
        lock.withLock {
            streamCount += 1
            stream = Stream(id: streamCount, start: start, width: width, height: height)
            lastStream = stream
            chunks.removeAll()
            lock.broadcast()
            return streamCount
        }
    }

    /// Adds an HLS initialization segment to stream `id`; the next segment started uses it,
    /// after a discontinuity.
    func addInitialization(_ bytes: [UInt8], stream id: Int) {
        lock.withLock {
            guard stream?.id == id else { return }
            initializationCount += 1
            initializations[initializationCount] = bytes
            initializations = initializations.filter { $0.key > initializationCount - 4 }
        }
    }

    /// Adds a chunk to stream `id`. `startsSegment` (an IDR) closes the segment in progress;
    /// `startsPart` closes the part in progress. `end` is where the chunk's media ends on the
    /// video timeline.
    func append(_ chunk: LiveChunk, stream id: Int) {
        lock.withLock {
            guard stream?.id == id else { return }
            chunks.append(Chunk(index: nextChunkIndex, bytes: chunk.bytes, pictureBytes: chunk.pictureBytes,
                                isIndependent: chunk.isIndependent, orientation: chunk.orientation, time: chunk.time))
            if chunk.startsSegment || segments.last?.isComplete != false {
                startSegment(at: chunk.time, captureTime: chunk.captureTime, firstChunk: nextChunkIndex)
            } else if chunk.startsPart {
                closePart()
            }
            nextChunkIndex += 1
            trimChunks()
            let last = segments.count - 1
            if chunk.startsSegment || chunk.startsPart || segments[last].parts.last?.isComplete != false {
                segments[last].parts.append(Part(isIndependent: chunk.isIndependent, start: chunk.time, end: chunk.end))
            }
            segments[last].parts[segments[last].parts.count - 1].bytes += chunk.bytes
            segments[last].parts[segments[last].parts.count - 1].end = chunk.end
            segments[last].end = chunk.end
            lock.broadcast()
        }
    }

    /// Marks stream `id`'s part in progress complete: its last chunk is in.
    func completePart(stream id: Int) {
        lock.withLock {
            guard stream?.id == id else { return }
            closePart()
            lock.broadcast()
        }
    }

    /// Marks stream `id`'s segment in progress complete: the next chunk starts a new one (so a
    /// playlist's preload hint names that one's first part).
    func completeSegment(stream id: Int) {
        lock.withLock {
            guard stream?.id == id, let last = segments.indices.last else { return }
            closePart()
            segments[last].isComplete = true
            lock.broadcast()
        }
    }

    /// Ends stream `id`: its readers reach the end; HLS goes on after a discontinuity when the
    /// next stream begins.
    func end(stream id: Int) {
        lock.withLock {
            guard stream?.id == id else { return }
            closePart()
            if let last = segments.indices.last { segments[last].isComplete = true }
            stream = nil
            lock.broadcast()
        }
    }

    /// Tells the hub whether its output is stopped (true) or connected to a session again
    /// (false), so that the end of the stream is the end of the playlist only in the first case.
    func setOutputStopped(_ stopped: Bool) {
        lock.withLock {
            isOutputStopped = stopped
            lock.broadcast()
        }
    }

    /// Whether nothing more will be published until the output is connected again: its stream
    /// ended after it stopped, or the hub shut down. Called under the lock.
    var hasEnded: Bool { isShutDown || (isOutputStopped && stream == nil) }

    /// Ends the waits of `group`'s readers, for good.
    func cancel(_ group: ReaderGroup) {
        lock.withLock {
            group.isCancelled = true
            lock.broadcast()
        }
    }

    /// Whether `group`'s readers were stopped, or the hub shut down.
    func isStopped(_ group: ReaderGroup) -> Bool { lock.withLock { group.isCancelled || isShutDown } }

    /// Ends every wait for good: the output is going away.
    func shutDown() {
        lock.withLock {
            isShutDown = true
            lock.broadcast()
        }
    }

    private func startSegment(at time: UInt64, captureTime: UInt64, firstChunk: Int) {
        closePart()
        if let last = segments.indices.last { segments[last].isComplete = true }
        let previous = segments.last?.initialization
        segments.append(Segment(sequenceNumber: nextSequenceNumber, initialization: initializationCount,
                                isDiscontinuity: previous != nil && previous != initializationCount,
                                captureTime: captureTime, firstChunk: firstChunk, start: time, end: time))
        nextSequenceNumber += 1
        while segments.count > segmentWindow {
            // A segment leaving the window takes its discontinuity into the sequence number.
            if segments.removeFirst().isDiscontinuity { discontinuitySequence += 1 }
        }
    }

    private func closePart() {
        guard let last = segments.indices.last, let part = segments[last].parts.indices.last else { return }
        segments[last].parts[part].isComplete = true
    }

    /// Keeps the chunks from the second newest segment on, and at most 300.
    private func trimChunks() {
        let keepFrom = segments.count >= 2 ? segments[segments.count - 2].firstChunk : 0
        if let first = chunks.first, first.index < keepFrom { chunks.removeFirst(min(chunks.count, keepFrom - first.index)) }
        if chunks.count > 300 { chunks.removeFirst(chunks.count - 300) }
    }
}
