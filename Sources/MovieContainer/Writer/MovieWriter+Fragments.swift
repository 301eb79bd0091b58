// Fragments: with `Configuration.fragmentInterval`, the pending samples go out as a movie
// fragment (`moof` + `mdat`) every interval, laid out by `FragmentBuilder`.
extension MovieWriter {
    /// Before a video sample at `decodeTime` joins `track`'s pending samples: writes the pending
    /// fragment when the driving track says it is due, and notes when the next one starts. The
    /// first fragment goes out with the first frame, so a file cut off early already holds a
    /// playable picture; later ones every interval.
    func writeFragmentIfDue(beforeVideoSampleAt decodeTime: Int64, of track: TrackBuilder) throws {
        guard track === drivingTrack else { return }
        if let start = fragmentStart, !track.fragmentSamples.isEmpty,
           fragments.sequenceNumber == 0 || decodeTime - start >= track.fragmentTicks {
            try writeFragment(nextDecodeTimes: [track.id: decodeTime])
        }
        if track.fragmentSamples.isEmpty { fragmentStart = decodeTime }
    }

    /// After PCM frames or an AAC access unit join `track`'s pending media: audio drives the fragments of an
    /// audio-only movie; with video it only forces one when the video has stalled for three
    /// intervals.
    func writeFragmentIfDue(afterAudioOf track: TrackBuilder) throws {
        let limit = track.fragmentTicks
        if track.pendingAudioTicks >= (track === drivingTrack ? limit : 3 * limit) {
            try writeFragment(nextDecodeTimes: [:])
        }
    }

    /// Writes the pending samples as one movie fragment: `moof` then `mdat`, with one `trun`
    /// per track (PCM described by `tfhd` defaults, not per frame).
    ///
    /// The `mdat` is written first and the `moof` in front of it last, so a process killed
    /// mid-write leaves a zero-filled gap that readers take as the end of the file, never a
    /// fragment whose data is missing. With ``Configuration/coalescesMediaWrites`` (a muxer)
    /// both join the media batch, header first, and go out in the batch's writes in file order:
    /// a process killed between them leaves a file that ends inside the fragment's `mdat`,
    /// which its size shows, and repair drops that fragment.
    /// - Parameter nextDecodeTimes: for video tracks, the decode time of the sample after the
    ///   pending ones, which fixes the last one's duration; a track without one keeps its last
    ///   sample for the next fragment unless `final`.
    func writeFragment(nextDecodeTimes: [UInt32: Int64], final: Bool = false) throws {
        guard let fragment = try fragments.makeFragment(of: tracks, nextDecodeTimes: nextDecodeTimes, final: final) else {
            return
        }
        let start = fileOffset
        try stoppingOnFailure { try store(fragment, at: start) }
        if configuration.durability == .syncEachFragment { try synchronize(fragment, step: "flushing") }
        fileOffset += UInt64(fragment.size)
        try stoppingOnFailure {
            for (part, offset) in zip(fragment.parts, fragment.dataOffsets) {
                try part.track.addChunk(at: start + UInt64(offset), sampleCount: UInt32(part.sampleCount))
                part.track.consumePending(samples: part.sampleCount, bytes: part.byteCount)
            }
        }
        if let driving = drivingTrack, driving.isVideo {
            fragmentStart = driving.fragmentSamples.first?.decodeTime
        }
    }

    /// Writes `fragment`'s headers and media at `offset`, in the order ``writeFragment(nextDecodeTimes:final:)``
    /// describes.
    private func store(_ fragment: MovieFragment, at offset: UInt64) throws {
        let media = fragment.parts.map { (track: $0.track, count: $0.byteCount) }
        let step = "writing fragment \(fragment.sequenceNumber)"
        try fragment.headers.withUnsafeBytes { headers in
            if output.coalescesMediaWrites, configuration.durability == .none {
                // Coalesced (a muxer): the headers join the batch ahead of their media, so
                // fragments go out together in the batch's few large writes.
                try output.storeMedia(header: headers, media, at: offset, step: step)
            } else {
                // The media first, behind its mdat header, then the moof that points to it.
                try output.storeMedia(header: UnsafeRawBufferPointer(rebasing: headers[fragment.moofSize...]), media,
                                      at: offset + UInt64(fragment.moofSize), step: step + "'s media")
                // Synced fragments: the media is on the disk before the header that points at
                // it is written, so a synced header never points at media a power cut lost.
                if configuration.durability == .syncEachFragment {
                    try output.flushMedia()  // a batching writer (a muxer) has only collected it
                    try synchronize(fragment, step: "flushing the media of")
                }
                try output.store(UnsafeRawBufferPointer(rebasing: headers[..<fragment.moofSize]), at: offset,
                                 step: step + "'s header")
            }
        }
    }

    /// Forces what was written of `fragment` to the disk (``Durability/syncEachFragment``).
    private func synchronize(_ fragment: MovieFragment, step: String) throws {
        do {
            try output.sink.synchronize()
        } catch {
            state = .failed
            throw MovieWriterError(.writeFailed, "\(step) fragment \(fragment.sequenceNumber) to disk", underlying: error)
        }
    }
}
