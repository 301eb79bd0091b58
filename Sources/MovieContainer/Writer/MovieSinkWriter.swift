/// Writes a movie's bytes to its sink: headers and tables as they are, media gathered from the
/// tracks' pending chunks, and — when the writer coalesces media writes — media collected into
/// a ``MediaWriteBatch`` first.
///
/// Anything that is not batched media goes out after the batch, so the sink sees the bytes of
/// the file in the order they were stored. A failed write throws ``MovieWriterError``
/// (`writeFailed`) naming the step and the offset; the writer then stops.
///
/// Its stored properties are `@exclusivity(unchecked)`, for the reason given at `TrackBuilder`.
final class MovieSinkWriter {
    let sink: any MovieByteSink
    /// With ``MovieWriter/Configuration/coalescesMediaWrites``: media not yet handed to the sink.
    private let mediaBatch: MediaWriteBatch?
    /// Whether sample bytes are left out of the file (``MovieWriter/omitsMediaData``): the
    /// tracks' pending media is then only a byte count.
    @exclusivity(unchecked) var omitsMediaData = false

    init(sink: any MovieByteSink, coalescesMediaWrites: Bool) {
        self.sink = sink
        mediaBatch = coalescesMediaWrites ? MediaWriteBatch() : nil
    }

    /// A Boolean value that indicates whether media is collected into batched writes.
    var coalescesMediaWrites: Bool { mediaBatch != nil }

    /// Writes `header`, then the first `count` pending bytes of each track, from `offset`: into
    /// the media batch when writes are coalesced and the copied bytes fit, otherwise at once in
    /// one gathered write.
    func storeMedia(header: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                    _ parts: [(track: TrackBuilder, count: Int)], at offset: UInt64, step: String) throws {
        if omitsMediaData {  // the pending media is only a byte count: a hole in the file
            if !header.isEmpty { try store(header, at: offset, step: step) }
            return
        }
        if let batch = mediaBatch, try append(header: header, parts, at: offset, to: batch) { return }
        func gather(from index: Int, _ buffers: [UnsafeRawBufferPointer]) throws {
            guard index < parts.count else { return try store(gathering: buffers, at: offset, step: step) }
            try parts[index].track.chunk.withBuffers(prefix: parts[index].count) { try gather(from: index + 1, buffers + $0) }
        }
        try gather(from: 0, header.isEmpty ? [] : [header])
    }

    /// Adds `header` and the parts' media to the batch, writing the batch first when they do not
    /// continue it or their copied bytes do not fit beside it. Returns `false`, with nothing
    /// added, when the copied bytes do not fit even an empty batch.
    private func append(header: UnsafeRawBufferPointer, _ parts: [(track: TrackBuilder, count: Int)], at offset: UInt64,
                        to batch: MediaWriteBatch) throws -> Bool {
        if !batch.continues(at: offset) { try flushMedia() }
        let copied = header.count + parts.reduce(0) { $0 + $1.track.chunk.copiedCount(prefix: $1.count) }
        if copied > batch.stagingSpace { try flushMedia() }
        guard copied <= batch.stagingSpace else { return false }
        if batch.isEmpty { batch.begin(at: offset) }
        batch.append(copying: header)
        for part in parts {
            part.track.chunk.forEachBuffer(prefix: part.count) { buffer, isBorrowed in
                if isBorrowed { batch.append(borrowing: buffer) } else { batch.append(copying: buffer) }
            }
        }
        if batch.isFull { try flushMedia() }
        return true
    }

    /// Writes the coalesced media collected so far, if it is at least `minimum` bytes.
    func writeCollectedMedia(ifAtLeast minimum: Int) throws {
        guard let batch = mediaBatch, batch.count >= minimum else { return }
        try flushMedia()
    }

    /// Hands the media batch to the sink.
    func flushMedia() throws {
        guard let batch = mediaBatch, !batch.isEmpty else { return }
        defer { batch.removeAll() }
        try write(gathering: batch.buffers, at: batch.offset, step: "writing media")
    }

    /// Writes `bytes` after any batched media.
    func store(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, step: String) throws {
        try flushMedia()
        try write(bytes, at: offset, step: step)
    }

    /// Writes `bytes` after any batched media.
    func store(_ bytes: [UInt8], at offset: UInt64, step: String) throws {
        try bytes.withUnsafeBytes { try store($0, at: offset, step: step) }
    }

    /// Writes `buffers` after any batched media.
    private func store(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64, step: String) throws {
        try flushMedia()
        try write(gathering: buffers, at: offset, step: step)
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, step: String) throws {
        do {
            try sink.write(bytes, at: offset)
        } catch {
            throw MovieWriterError(.writeFailed, step + " at byte \(offset)", underlying: error)
        }
    }

    private func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64, step: String) throws {
        if buffers.count == 1 { return try write(buffers[0], at: offset, step: step) }
        do {
            try sink.write(gathering: buffers, at: offset)
        } catch {
            throw MovieWriterError(.writeFailed, step + " at byte \(offset)", underlying: error)
        }
    }
}
