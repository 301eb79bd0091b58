

/// A track's sample tables as stored: enough to find every sample's bytes and times.
package struct SampleTable: Sendable {
    package var timeToSample: TimeToSampleAtom
    package var compositionOffsets: CompositionOffsetAtom?
    package var syncSamples: SyncSampleAtom?
    /// `sdtp`: each sample's dependency byte, when the track has one.
    package var dependencies: SampleDependencyTypeAtom?
    package var sampleToChunk: SampleToChunkAtom
    package var sizes: SampleSizeAtom
    /// Chunk offsets from `stco` or `co64`.
    package var chunkOffsets: [UInt64]
    /// A Boolean value that indicates whether offsets came from `co64`.
    package var usesLargeOffsets: Bool

    init(stbl: AtomNode) throws(MovieFormatError) {
        guard let stts = stbl.child("stts") else { throw .missingAtom("stts", in: "a sample table") }
        guard let stsc = stbl.child("stsc") else { throw .missingAtom("stsc", in: "a sample table") }
        guard let stsz = stbl.child("stsz") else { throw .missingAtom("stsz", in: "a sample table") }
        timeToSample = try stts.decode(TimeToSampleAtom.self)
        compositionOffsets = try stbl.child("ctts")?.decode(CompositionOffsetAtom.self)
        syncSamples = try stbl.child("stss")?.decode(SyncSampleAtom.self)
        dependencies = try stbl.child("sdtp")?.decode(SampleDependencyTypeAtom.self)
        sampleToChunk = try stsc.decode(SampleToChunkAtom.self)
        sizes = try stsz.decode(SampleSizeAtom.self)
        if let co64 = stbl.child("co64") {
            chunkOffsets = try co64.decode(ChunkOffset64Atom.self).offsets
            usesLargeOffsets = true
        } else if let stco = stbl.child("stco") {
            chunkOffsets = try stco.decode(ChunkOffsetAtom.self).offsets.map(UInt64.init)
            usesLargeOffsets = false
        } else {
            throw .missingAtom("stco", in: "a sample table")
        }
    }

    /// One sample's place in the file and on the media timeline.
    package struct Sample: Hashable, Sendable {
        /// The file offset of the sample's first byte, from the chunk offsets, `stsc` and `stsz`.
        package var offset: UInt64
        /// The sample's size in bytes, from `stsz`.
        package var size: UInt32
        /// The decode time in media (`mdhd`) time-scale ticks: the sum of the `stts` durations
        /// before it.
        package var decodeTime: Int64
        /// The sample's duration in media time-scale ticks, from `stts`.
        package var duration: UInt32
        /// Presentation (composition) time: decode time plus the `ctts` offset.
        package var presentationTime: Int64
        /// A Boolean value that indicates whether the sample is a sync sample (a keyframe):
        /// listed in `stss`, or every sample when the track has no `stss`.
        package var isSync: Bool
    }

    /// Lists the samples in decode order.
    ///
    /// - Parameter limit: the most samples to list; tables that claim more, or contradict each
    ///   other, throw instead of allocating.
    /// - Throws: ``MovieFormatError`` when the tables disagree.
    package func samples(limit: Int = 10_000_000) throws(MovieFormatError) -> [Sample] {
        let count = Int(sizes.sampleCount)
        guard count <= limit else {
            throw .invalidValue("stsz", "\(count) samples are more than the \(limit) this listing allows")
        }
        // The chunk layout must place exactly `count` samples before anything is allocated for them.
        var placed: UInt64 = 0
        for (i, entry) in sampleToChunk.entries.enumerated() {
            let next = i + 1 < sampleToChunk.entries.count ? UInt64(sampleToChunk.entries[i + 1].firstChunk) : UInt64(chunkOffsets.count) + 1
            guard next >= UInt64(entry.firstChunk) else { throw .invalidValue("stsc", "entry \(i + 1) starts after the next one") }
            placed += (next - UInt64(entry.firstChunk)) * UInt64(entry.samplesPerChunk)
            guard placed <= UInt64(count) else { throw .invalidValue("stsc", "places more samples in chunks than 'stsz' holds (\(count))") }
        }
        var result: [Sample] = []
        result.reserveCapacity(count)
        // Decode times and durations.
        var durations: [UInt32] = []
        durations.reserveCapacity(count)
        for e in timeToSample.entries {
            guard durations.count + Int(e.count) <= count else { throw .invalidValue("stts", "describes more samples than 'stsz' holds (\(count))") }
            durations.append(contentsOf: repeatElement(e.duration, count: Int(e.count)))
        }
        guard durations.count == count else { throw .invalidValue("stts", "describes \(durations.count) samples but 'stsz' holds \(count)") }
        var offsets = [Int32](repeating: 0, count: count)
        if let ctts = compositionOffsets {
            var i = 0
            for e in ctts.entries {
                guard i + Int(e.count) <= count else { throw .invalidValue("ctts", "describes more samples than 'stsz' holds (\(count))") }
                for j in 0..<Int(e.count) { offsets[i + j] = e.offset }
                i += Int(e.count)
            }
        }
        var sync = [Bool](repeating: syncSamples == nil, count: count)
        for n in syncSamples?.sampleNumbers ?? [] {
            guard n >= 1, Int(n) <= count else { throw .invalidValue("stss", "sample number \(n) is outside 1...\(count)") }
            sync[Int(n) - 1] = true
        }
        // Chunks.
        let entries = sampleToChunk.entries
        var sample = 0
        var time: Int64 = 0
        for (entryIndex, entry) in entries.enumerated() {
            let firstChunk = Int(entry.firstChunk)
            let lastChunk = entryIndex + 1 < entries.count ? Int(entries[entryIndex + 1].firstChunk) - 1 : chunkOffsets.count
            guard firstChunk >= 1, lastChunk <= chunkOffsets.count, firstChunk <= lastChunk + 1 else {
                throw .invalidValue("stsc", "entry \(entryIndex + 1) names chunks \(firstChunk)...\(lastChunk) but there are \(chunkOffsets.count)")
            }
            guard firstChunk <= lastChunk else { continue }
            for chunk in firstChunk...lastChunk {
                var offset = chunkOffsets[chunk - 1]
                for _ in 0..<entry.samplesPerChunk {
                    guard sample < count else { throw .invalidValue("stsc", "places more samples in chunks than 'stsz' holds (\(count))") }
                    let size = sizes.size(ofSample: sample)
                    result.append(Sample(offset: offset, size: size, decodeTime: time, duration: durations[sample],
                                         presentationTime: time + Int64(offsets[sample]), isSync: sync[sample]))
                    let next = offset.addingReportingOverflow(UInt64(size))
                    guard !next.overflow else {
                        throw .invalidValue(usesLargeOffsets ? "co64" : "stco", "chunk \(chunk) at offset \(chunkOffsets[chunk - 1]) holds samples that run past the largest 64-bit file offset")
                    }
                    offset = next.partialValue
                    time += Int64(durations[sample])
                    sample += 1
                }
            }
        }
        guard sample == count else { throw .invalidValue("stsc", "places \(sample) samples in chunks but 'stsz' holds \(count)") }
        return result
    }
}
