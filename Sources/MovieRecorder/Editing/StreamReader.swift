import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// Reads a mapped Annex-B stream on a thread of its own, up to a megabyte at a time, and hands the
/// pictures it finds to the thread writing the movie, which gives them their display positions
/// with `PresentationOrder` and writes them in decode order. The reading thread also faults in
/// the audio that goes with the pictures it has read, so neither input's pages are mapped on
/// the writer's time.
///
/// Finding NAL units touches every byte of the stream; writing copies every byte into the page
/// cache. On two cores the two now overlap instead of following each other.
final class StreamReader: @unchecked Sendable {
    // @unchecked: the queue synchronises itself; `thread` is touched only by the thread that
    // created the reader (and `deinit`); the reading closure does not capture `self`.

    /// What the parameter sets said.
    struct Bound {
        var configuration: VideoDecoderConfiguration
        var reorderBound: Int
    }

    private enum Message {
        case configuration(VideoDecoderConfiguration, reorderBound: Int)
        /// Pictures in decode order; their `nalUnits` index `units`.
        case pictures(units: [Range<Int>], pictures: [AnnexBStream.PictureParser.Picture])
        case failed(MovieFormatError)
        /// The stream states no reorder bound or has a picture before its parameter sets: only
        /// reading all of it tells the display order.
        case wholeStreamNeeded
    }

    /// How much of the stream is read at a time, unless asked otherwise.
    static let defaultSegmentSize = 1 << 20
    /// The first segment's size; each next one is twice the last, up to the segment size. The
    /// writer waits for the first segment (and the audio that goes with it), so a small one
    /// lets it start sooner: a megabyte of small pictures holds half a minute of audio.
    static let firstSegmentSize = 1 << 16
    /// How many read segments may wait for the writer.
    private let queue = BoundedQueue<Message>(capacity: 8)
    private var thread: DedicatedThread?

    /// Starts reading `bytes` (the stream) on a new thread, `segmentSize` bytes at a time.
    /// `audioBytes` (maybe empty) is faulted in alongside: `audioEnd(n)` says where in it the
    /// audio that goes with the first `n` pictures ends.
    init(bytes: ImmutableBytes, audioBytes: ImmutableBytes, audioEnd: @escaping @Sendable (Int) -> Int,
         segmentSize: Int = defaultSegmentSize) {
        let queue = self.queue
        let segmentSize = max(1, segmentSize)
        thread = DedicatedThread(name: "movrec-demux") {
            Self.read(bytes, audioBytes: audioBytes, audioEnd: audioEnd, segmentSize: segmentSize, into: queue)
        }
    }

    deinit { stop() }

    /// Waits for the stream's parameter sets.
    /// - Returns: the configuration and the stated reorder bound, or `nil` when the stream has to
    ///   be read whole to tell its display order.
    /// - Throws: `MovieFormatError` when the parameter sets do not parse.
    func configuration() throws -> Bound? {
        switch queue.pop() {
        case .configuration(let configuration, let bound)?: return Bound(configuration: configuration, reorderBound: bound)
        case .failed(let error)?: throw error
        default: return nil
        }
    }

    /// Takes the pictures as they are read and calls `write` with each one's NAL units,
    /// presentation index and sync flag, in decode order, as soon as its display position is
    /// known.
    /// - Throws: `PresentationOrder.BoundExceeded` when the stream breaks its reorder bound
    ///   (nothing can be made of what was written), `MovieFormatError` when a slice header does
    ///   not parse, and whatever `write` throws.
    /// `idle` is called each time the writer would wait for the reading thread.
    func writePictures(_ reorderBound: Int, idle: () throws -> Void = {},
                       _ write: (ArraySlice<Range<Int>>, Int, Bool) throws -> Void) throws {
        var order = PresentationOrder(reorderBound: reorderBound)
        // Pictures read but not yet written, from decode index `firstDecodeIndex`; -1 for a
        // display position not yet known. A stream keeping its bound holds a few.
        var waiting: [(units: ArraySlice<Range<Int>>, isSync: Bool, presentationIndex: Int)] = []
        var firstDecodeIndex = 0, next = 0
        // Closure expressions rather than a local function: the compiler checks their accesses
        // to `waiting` when it builds them, not at run time for every picture.
        while true {
            if queue.isEmpty { try idle() }
            guard let message = queue.pop() else { break }
            switch message {
            case .pictures(let units, let pictures):
                for picture in pictures {
                    waiting.append((units[picture.nalUnits], picture.isSync, -1))
                    try order.add(idrPeriod: picture.idrPeriod, pictureOrderCount: picture.pictureOrderCount) {
                        waiting[$0 - firstDecodeIndex].presentationIndex = $1
                    }
                    while next < waiting.count, waiting[next].presentationIndex >= 0 {
                        try write(waiting[next].units, waiting[next].presentationIndex, waiting[next].isSync)
                        next += 1
                    }
                    if next >= 1024 {
                        waiting.removeFirst(next)
                        firstDecodeIndex += next
                        next = 0
                    }
                }
            case .failed(let error):
                throw error
            case .configuration, .wholeStreamNeeded:
                continue  // sent once, before any picture
            }
        }
        order.finish { waiting[$0 - firstDecodeIndex].presentationIndex = $1 }
        for picture in waiting[next...] { try write(picture.units, picture.presentationIndex, picture.isSync) }
    }

    /// Ends the reading thread (at once if it is still reading) and waits for it.
    func stop() {
        queue.close()
        thread?.join()
        thread = nil
    }

    private static func read(_ bytes: ImmutableBytes, audioBytes: ImmutableBytes, audioEnd: (Int) -> Int, segmentSize: Int,
                             into queue: BoundedQueue<Message>) {
        defer { queue.close() }
        bytes.withUnsafeBytes { buffer in
            audioBytes.withUnsafeBytes { audio in
                var scanner = AnnexBStream.UnitScanner()
                var units: [Range<Int>] = []
                // Until the first slice: the units so far, and the first SPS and PPS.
                var prelude: [(unit: Range<Int>, header: UInt8)] = []
                var codec: AnnexBStream.Codec?
                var parser: AnnexBStream.PictureParser?
                var position = 0, audioFaulted = 0, pictureCount = 0
                var nextSegmentSize = min(segmentSize, firstSegmentSize)
                // A writer that stopped (it failed, or the stream broke its bound) closes the
                // queue; a long stretch without a finished picture must not keep it waiting.
                while !queue.isClosed {
                    let limit = min(buffer.count, position + nextSegmentSize)
                    nextSegmentSize = min(segmentSize, 2 * nextSegmentSize)
                    prefaultMappedPages(buffer, position..<limit)
                    units.removeAll(keepingCapacity: true)
                    let atEnd = limit == buffer.count
                    if atEnd { scanner.finish(buffer, into: &units) } else { scanner.scan(buffer, upTo: limit, into: &units) }
                    position = limit
                    // The header bytes in a loop of their own, so their cache misses overlap.
                    let headers = units.map { buffer[$0.lowerBound] }
                    var kept: [Range<Int>] = [], pictures: [AnnexBStream.PictureParser.Picture] = []
                    do throws(MovieFormatError) {
                        var from = 0
                        if parser == nil {
                            from = units.count  // all prelude, unless a slice comes
                            if codec == nil, let first = units.first { codec = AnnexBStream.Codec.detect(firstUnit: first, in: buffer) }
                            for i in units.indices {
                                guard let codec, codec.isSlice(codec.type(headers[i])) else {
                                    prelude.append((units[i], headers[i]))
                                    continue
                                }
                                let parameterSets = AnnexBStream.firstParameterSets(prelude.lazy.map { ($0.unit, $0.header) },
                                                                                    codec: codec, in: buffer)
                                guard parameterSets.complete else {
                                    queue.push(.wholeStreamNeeded)
                                    return
                                }
                                let configuration = try VideoDecoderConfiguration(parameterSets: parameterSets.sets, codec: codec)
                                guard let bound = configuration.reorderBound else {
                                    queue.push(.wholeStreamNeeded)
                                    return
                                }
                                guard queue.push(.configuration(configuration, reorderBound: Int(bound))) else { return }
                                var started = AnnexBStream.PictureParser(configuration: configuration)
                                try started.add(prelude.map(\.unit)[...], headers: prelude.map(\.header)[...], of: buffer,
                                                keeping: &kept, pictures: &pictures)
                                parser = started
                                from = i
                                break
                            }
                        }
                        if parser != nil {
                            try parser!.add(units[from...], headers: headers[from...], of: buffer, keeping: &kept, pictures: &pictures)
                            if atEnd { parser!.finish(keeping: &kept, pictures: &pictures) }
                        }
                    } catch {
                        queue.push(.failed(error))
                        return
                    }
                    if !pictures.isEmpty {
                        // The audio that goes with these pictures, faulted in before the writer
                        // gets them: a writer copying from pages still being faulted in waits
                        // for them, page by page. No more than goes with the pictures read: a
                        // WAV longer than the video is not read past its end.
                        pictureCount += pictures.count
                        let audioTarget = min(audio.count, audioEnd(pictureCount))
                        if audioTarget > audioFaulted {
                            prefaultMappedPages(audio, audioFaulted..<audioTarget)
                            audioFaulted = audioTarget
                        }
                        guard queue.push(.pictures(units: kept, pictures: pictures)) else { return }
                    }
                    if atEnd {
                        if parser == nil { queue.push(.wholeStreamNeeded) }
                        return
                    }
                }
            }
        }
    }
}
