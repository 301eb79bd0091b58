// Appending samples: each track's samples collect into a chunk of about
// `Configuration.chunkDuration`, or into the pending fragment, and go to the sink as they fill.
extension MovieWriter {
    /// Appends one video sample (an access unit of length-prefixed NAL units for H.264).
    ///
    /// - Parameters:
    ///   - data: the sample's bytes; they are copied.
    ///   - track: a video track of this writer.
    ///   - decodeTime: ticks of the track's time scale; must increase from sample to sample.
    ///   - presentationTime: ticks; not before `decodeTime`. Differs from it with B-frames.
    ///   - isSync: whether the sample can be decoded on its own (an IDR picture).
    /// - Throws: ``MovieWriterError`` for bad timestamps, a wrong track or a failed write.
    public func appendVideoSample(_ data: UnsafeRawBufferPointer, to track: TrackID, decodeTime: Int64,
                                  presentationTime: Int64, isSync: Bool) throws {
        try appendVideoSample(size: data.count, to: track, decodeTime: decodeTime, presentationTime: presentationTime,
                              isSync: isSync, nalHeaders: { Self.nalHeaders(lengthPrefixed: data) }) { $0.append(copying: data) }
    }

    /// The first byte of each NAL unit of a sample stored with four-byte lengths.
    static func nalHeaders(lengthPrefixed data: UnsafeRawBufferPointer) -> [UInt8] {
        var headers: [UInt8] = []
        var offset = 0
        while offset + 5 <= data.count {
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            headers.append(data[offset + 4])
            guard length > 0, length <= data.count - offset - 4 else { break }
            offset += 4 + length
        }
        return headers
    }

    /// Appends one H.264 video sample, each NAL unit behind its four-byte length, without
    /// copying the NAL units: their bytes go to the sink when the sample's chunk or fragment is
    /// written, gathered with the other samples' into one write.
    ///
    /// - Important: `bytes` must stay valid and unchanged until ``finish(endTimes:)`` returns (or
    ///   the writer fails and is discarded), such as a mapped input file's.
    /// - Parameters:
    ///   - nalUnits: where the sample's NAL units lie in `bytes`, as
    ///     ``AnnexBStream/AccessUnit/nalUnitRanges``.
    ///   - others: as ``appendVideoSample(_:to:decodeTime:presentationTime:isSync:)``.
    package func appendVideoSample(borrowingNALUnits nalUnits: ArraySlice<Range<Int>>, of bytes: UnsafeRawBufferPointer,
                                   to track: TrackID, decodeTime: Int64, presentationTime: Int64, isSync: Bool) throws {
        var size = 0
        for range in nalUnits {
            precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a NAL unit lies outside its bytes")
            size += 4 + range.count
        }
        try appendVideoSample(size: size, to: track, decodeTime: decodeTime, presentationTime: presentationTime,
                              isSync: isSync, nalHeaders: { nalUnits.compactMap { $0.isEmpty ? nil : bytes[$0.lowerBound] } }) { media in
            for range in nalUnits {
                media.append(bigEndian: UInt32(range.count))
                media.append(borrowing: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        }
    }

    /// Appends a video sample of `size` bytes, which `appendBytes` adds to the track's pending
    /// media (or not, when media is omitted); `nalHeaders` gives the first byte of each of its
    /// NAL units, for `sdtp`.
    private func appendVideoSample(size: Int, to track: TrackID, decodeTime: Int64, presentationTime: Int64, isSync: Bool,
                                   nalHeaders: () -> [UInt8], bytes appendBytes: (inout PendingMedia) -> Void) throws {
        let builder = try self.track(track, video: true)
        // A writer that omits the media never reads the samples' bytes: their dependencies stay unknown.
        let referenced = output.omitsMediaData ? nil : SampleDependencyTypeAtom.isReferenced(nalHeaders: nalHeaders(), isHEVC: builder.isHEVC)
        let dependency = referenced == nil ? 0 : SampleDependencyTypeAtom.flags(isIndependent: isSync, isReferenced: referenced)
        try validateVideoSample(size: size, of: builder, decodeTime: decodeTime, presentationTime: presentationTime)
        try begin()
        if isFragmented {
            try writeFragmentIfDue(beforeVideoSampleAt: decodeTime, of: builder)
            builder.fragmentSamples.append(.init(size: UInt32(size), decodeTime: decodeTime,
                                                 compositionOffset: Int32(presentationTime - decodeTime), isSync: isSync))
        } else if builder.chunkSampleCount > 0, decodeTime - builder.chunkStartTime >= builder.chunkTicks {
            try writeChunk(of: builder)
        }
        if builder.chunkSampleCount == 0 { builder.chunkStartTime = decodeTime }
        if output.omitsMediaData { builder.chunk.append(omitting: size) } else { appendBytes(&builder.chunk) }
        builder.chunkSampleCount += 1
        try stoppingOnFailure {
            try builder.recordVideoSample(size: size, decodeTime: decodeTime, presentationTime: presentationTime, isSync: isSync,
                                          dependency: dependency)
        }
    }

    /// Checks that a video sample can be stored and that its decode time follows the track's
    /// previous sample's, with a presentation time not before it.
    private func validateVideoSample(size: Int, of builder: TrackBuilder, decodeTime: Int64, presentationTime: Int64) throws {
        let track = TrackID(rawValue: builder.id)
        guard size > 0, size <= Int(UInt32.max) else {
            throw MovieWriterError(.invalidSample, "\(track): a video sample of \(size) bytes cannot be stored")
        }
        if builder.firstDecodeTime != nil {
            guard decodeTime > builder.lastDecodeTime, decodeTime - builder.lastDecodeTime <= Int64(UInt32.max) else {
                throw MovieWriterError(.invalidTimestamps,
                    "\(track): decode time \(decodeTime) does not follow the previous sample's \(builder.lastDecodeTime)")
            }
        }
        guard presentationTime >= decodeTime, presentationTime - decodeTime <= Int64(Int32.max) else {
            throw MovieWriterError(.invalidTimestamps,
                "\(track): presentation time \(presentationTime) is before decode time \(decodeTime)")
        }
    }

    /// Appends a video sample from an array.
    public func appendVideoSample(_ data: [UInt8], to track: TrackID, decodeTime: Int64, presentationTime: Int64,
                                  isSync: Bool) throws {
        try data.withUnsafeBytes {
            try appendVideoSample($0, to: track, decodeTime: decodeTime, presentationTime: presentationTime, isSync: isSync)
        }
    }

    /// Appends interleaved PCM frames to an audio track. The track's time follows its frame
    /// count from `startTime`, which only the first call sets.
    ///
    /// - Parameters:
    ///   - data: whole frames in the track's PCM format; copied.
    ///   - track: the audio track, as ``addAudioTrack(_:)`` returned it.
    ///   - startTime: for the first call, where the first frame sits on the movie timeline, in
    ///     ticks of the sample rate (negative when audio began before the movie).
    /// - Throws: ``MovieWriterError`` for partial frames, a wrong track or a failed write.
    public func appendAudioFrames(_ data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64 = 0) throws {
        try appendAudioFrames(data, to: track, startTime: startTime, borrowing: false)
    }

    /// Appends interleaved PCM frames without copying them: their bytes go to the sink when the
    /// chunk or fragment is written.
    ///
    /// - Important: `data` must stay valid and unchanged until ``finish(endTimes:)`` returns (or
    ///   the writer fails and is discarded), such as a mapped input file's.
    /// - Parameters: as ``appendAudioFrames(_:to:startTime:)``.
    package func appendAudioFrames(borrowing data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64 = 0) throws {
        try appendAudioFrames(data, to: track, startTime: startTime, borrowing: true)
    }

    /// Appends PCM frames, copied or borrowed, and writes the chunk or fragment they fill.
    private func appendAudioFrames(_ data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64, borrowing: Bool) throws {
        let builder = try self.track(track, video: false)
        guard builder.aac == nil else {
            throw MovieWriterError(.invalidSample, "\(track) holds AAC: append its access units with appendAudioPacket")
        }
        guard data.count % builder.bytesPerFrame == 0 else {
            throw MovieWriterError(.invalidSample,
                "\(track): \(data.count) bytes of PCM are not whole frames of \(builder.bytesPerFrame) bytes")
        }
        let frames = data.count / builder.bytesPerFrame
        guard frames > 0 else { return }
        try begin()
        if builder.chunkSampleCount == 0 { builder.chunkStartTime = builder.decodeEnd }
        if output.omitsMediaData {
            builder.chunk.append(omitting: data.count)
        } else if borrowing {
            builder.chunk.append(borrowing: data)
        } else {
            builder.chunk.append(copying: data)
        }
        builder.chunkSampleCount += UInt32(frames)
        try stoppingOnFailure { try builder.recordAudioFrames(frames, startTime: startTime) }
        if isFragmented {
            try writeFragmentIfDue(afterAudioOf: builder)
        } else if Int64(builder.chunkSampleCount) >= builder.chunkTicks {
            try writeChunk(of: builder)
        }
    }

    /// Appends one AAC access unit (1024 frames) to an AAC audio track. The track's time
    /// follows its access-unit count from `startTime`, which only the first call sets.
    ///
    /// - Parameters:
    ///   - data: the access unit's bytes, as the encoder gave them (no ADTS header); copied.
    ///   - track: an AAC track, as ``addAudioTrack(_:)`` returned it.
    ///   - startTime: for the first call, where the first input frame sits on the movie
    ///     timeline, in ticks of the sample rate. The encoder's delay
    ///     (``AACFormat/primingFrames``) comes before it and the edit list hides it.
    /// - Throws: ``MovieWriterError`` for an empty access unit, a wrong track or a failed write.
    public func appendAudioPacket(_ data: UnsafeRawBufferPointer, to track: TrackID, startTime: Int64 = 0) throws {
        let builder = try self.track(track, video: false)
        guard builder.aac != nil else {
            throw MovieWriterError(.invalidSample, "\(track) holds PCM: append its frames with appendAudioFrames")
        }
        guard data.count > 0, data.count <= Int(UInt32.max) else {
            throw MovieWriterError(.invalidSample, "\(track): an AAC access unit of \(data.count) bytes cannot be stored")
        }
        try begin()
        if builder.chunkSampleCount == 0 { builder.chunkStartTime = builder.decodeEnd }
        if output.omitsMediaData { builder.chunk.append(omitting: data.count) } else { builder.chunk.append(copying: data) }
        builder.chunkSampleCount += 1
        if isFragmented {
            builder.fragmentSamples.append(.init(size: UInt32(data.count), decodeTime: builder.decodeEnd,
                                                 compositionOffset: 0, isSync: true))
        }
        try stoppingOnFailure { try builder.recordAudioPacket(size: data.count, startTime: startTime) }
        if isFragmented {
            try writeFragmentIfDue(afterAudioOf: builder)
        } else if builder.pendingAudioTicks >= builder.chunkTicks {
            try writeChunk(of: builder)
        }
    }

    /// Appends one AAC access unit from an array.
    public func appendAudioPacket(_ data: [UInt8], to track: TrackID, startTime: Int64 = 0) throws {
        try data.withUnsafeBytes { try appendAudioPacket($0, to: track, startTime: startTime) }
    }

    /// Appends PCM frames from an array.
    public func appendAudioFrames(_ data: [UInt8], to track: TrackID, startTime: Int64 = 0) throws {
        try data.withUnsafeBytes { try appendAudioFrames($0, to: track, startTime: startTime) }
    }

    /// Writes a track's pending samples as a chunk at the end of the file.
    func writeChunk(of builder: TrackBuilder) throws {
        let offset = fileOffset
        try stoppingOnFailure {
            try output.storeMedia([(builder, builder.chunk.count)], at: offset, step: "writing media of track \(builder.id)")
        }
        fileOffset += UInt64(builder.chunk.count)
        try stoppingOnFailure { try builder.recordChunk(at: offset) }
    }

    /// Writes the coalesced media collected so far, if it is at least `minimum` bytes, instead of
    /// waiting for the batch to fill: for a caller about to wait for more input, which would
    /// otherwise leave the disk idle while it waits.
    package func writeCollectedMedia(ifAtLeast minimum: Int) throws {
        try stoppingOnFailure { try output.writeCollectedMedia(ifAtLeast: minimum) }
    }
}
