import MovieContainer
import MoviePlatform

extension LiveStreamHub {
    /// Where one reader of the fMP4 stream is: which stream, and the next chunk it needs.
    struct StreamPosition {
        var streamID: Int?
        var nextChunk = 0
        /// Whether the reader takes the stream without its audio.
        var picturesOnly = false
    }

    enum Read {
        case bytes([UInt8])
        /// The stream the reader was reading ended (or the hub shut down).
        case end
        /// Nothing new before the deadline.
        case timeout
    }

    /// The next bytes of the fMP4 stream for a reader at `position`, waiting until `deadline`
    /// (monotonic nanoseconds). A new reader gets the initialization segment, the current
    /// orientation and the chunks from the newest independent one on; one that fell out of the
    /// window skips to the newest independent chunk.
    func read(_ position: inout StreamPosition, until deadline: UInt64, group: ReaderGroup? = nil) -> Read {
        lock.withLock {
            while true {
                if isShutDown || group?.isCancelled == true { return .end }
                // A reader of a stream that ended takes what is left of it, then reaches its end.
                if let id = position.streamID, stream?.id != id {
                    guard stream == nil, let last = lastStream, last.id == id, let rest = take(&position, last) else { return .end }
                    return .bytes(rest)
                }
                if let stream, let bytes = take(&position, stream) { return .bytes(bytes) }
                if !lock.wait(until: deadline) { return .timeout }
            }
        }
    }

    /// What the reader gets now, if anything; called under the lock.
    private func take(_ position: inout StreamPosition, _ stream: Stream) -> [UInt8]? {
        var bytes: [UInt8] = []
        if position.streamID == nil || (chunks.first.map { $0.index > position.nextChunk } ?? false) {
            guard let start = chunks.last(where: \.isIndependent) else { return nil }
            if position.streamID == nil {
                bytes = position.picturesOnly ? stream.start.picturePageInitialization : stream.start.pageInitialization
            }
            position.streamID = stream.id
            position.nextChunk = start.index
            bytes += LiveStreamMessages.orientation(start.orientation, timescale: stream.timescale, time: start.time)
        }
        guard let first = chunks.first, let last = chunks.last, last.index >= position.nextChunk else {
            return bytes.isEmpty ? nil : bytes
        }
        for chunk in chunks[(position.nextChunk - first.index)...] {
            bytes += position.picturesOnly ? chunk.pictureBytes ?? chunk.bytes : chunk.bytes
        }
        position.nextChunk = last.index + 1
        return bytes
    }

    /// What a playlist shows: the segments in the window, without their bytes.
    struct PlaylistSnapshot {
        struct Part { let duration: Double; let isIndependent: Bool; let isComplete: Bool }
        struct Segment {
            let sequenceNumber: Int
            let initialization: Int
            let isDiscontinuity: Bool
            let captureTime: UInt64
            let duration: Double
            let isComplete: Bool
            let parts: [Part]
        }
        let segments: [Segment]
        let codecs: String
        let isLive: Bool
        /// Discontinuities before the first segment listed.
        let discontinuitySequence: Int
        /// The longest a part lasts, in seconds, and the longest a segment does, rounded up.
        let partTarget: Double
        let targetDuration: Int
    }

    /// The playlist, once it holds part `part` of segment `sequenceNumber` (or that whole
    /// segment when `part` is nil), or at `deadline`, or at once when the stream has ended (it is
    /// then not live: `EXT-X-ENDLIST`); nil when nothing has been streamed yet.
    func playlist(waitingFor sequenceNumber: Int?, part: Int?, until deadline: UInt64, group: ReaderGroup? = nil) -> PlaylistSnapshot? {
        lock.withLock {
            while let sequenceNumber, !hasEnded, group?.isCancelled != true, !holds(sequenceNumber, part) {
                if !lock.wait(until: deadline) { break }
            }
            guard !segments.isEmpty, let last = lastStream else { return nil }
            let timescale = last.timescale
            let seconds = { (ticks: UInt64) in Double(ticks) / Double(timescale) }
            return PlaylistSnapshot(
                segments: segments.map { s in
                    .init(sequenceNumber: s.sequenceNumber, initialization: s.initialization, isDiscontinuity: s.isDiscontinuity,
                          captureTime: s.captureTime, duration: seconds(s.end - s.start), isComplete: s.isComplete,
                          parts: s.parts.map { .init(duration: seconds($0.end - $0.start), isIndependent: $0.isIndependent,
                                                     isComplete: $0.isComplete) })
                },
                codecs: last.codecs, isLive: !hasEnded, discontinuitySequence: discontinuitySequence,
                partTarget: last.partTarget, targetDuration: last.targetDuration)
        }
    }

    /// Whether the window holds that part complete, or anything after it; under the lock.
    private func holds(_ sequenceNumber: Int, _ part: Int?) -> Bool {
        guard let last = segments.last else { return false }
        if last.sequenceNumber > sequenceNumber + 1 { return true }
        guard let segment = segments.first(where: { $0.sequenceNumber == sequenceNumber }) else {
            return last.sequenceNumber > sequenceNumber
        }
        guard let part else { return segment.isComplete }
        if part >= 0, part < segment.parts.count, segment.parts[part].isComplete { return true }
        return segment.isComplete && part >= segment.parts.count
            && segments.contains { $0.sequenceNumber > sequenceNumber && $0.parts.first?.isComplete == true }
    }

    /// The newest sequence number in the window, or nil before the first segment.
    var lastSequenceNumber: Int? { lock.withLock { segments.last?.sequenceNumber } }

    /// Part `index` of segment `sequenceNumber`, waiting until `deadline` for it to complete
    /// (a preload hint's request arrives before the part is done); nil when it is not in the
    /// window or not complete by then, or the stream has ended without it.
    func part(_ sequenceNumber: Int, _ index: Int, until deadline: UInt64, group: ReaderGroup? = nil) -> [UInt8]? {
        lock.withLock {
            while group?.isCancelled != true {
                if let segment = segments.first(where: { $0.sequenceNumber == sequenceNumber }) {
                    if index < segment.parts.count, segment.parts[index].isComplete { return segment.parts[index].bytes }
                    if segment.isComplete { return nil }
                } else if (segments.first?.sequenceNumber ?? 0) > sequenceNumber {
                    return nil
                }
                if hasEnded || !lock.wait(until: deadline) { return nil }
            }
            return nil
        }
    }

    /// Segment `sequenceNumber`'s bytes, once it is complete and while it is in the window.
    func segment(_ sequenceNumber: Int) -> [UInt8]? {
        lock.withLock { segments.first { $0.sequenceNumber == sequenceNumber && $0.isComplete }?.bytes }
    }

    /// Initialization segment `number`, while it is kept.
    func initialization(_ number: Int) -> [UInt8]? { lock.withLock { initializations[number] } }

    /// The stream running now, waiting until `deadline` for one to begin.
    func waitForStream(until deadline: UInt64, group: ReaderGroup) -> Stream? {
        lock.withLock {
            while stream == nil && !isShutDown && !group.isCancelled {
                if !lock.wait(until: deadline) { break }
            }
            return stream
        }
    }

    /// The stream's picture size and codecs now, if it runs.
    var currentStream: Stream? { lock.withLock { stream } }

    /// The target duration of the last stream's segments (1 before any), for a blocking
    /// request's deadline.
    var targetDuration: Int { lock.withLock { lastStream?.targetDuration ?? 1 } }
}
