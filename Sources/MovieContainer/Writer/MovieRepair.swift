/// Turns a fragmented movie that was cut off — by a crash, a kill, a power cut or a full disk —
/// into an ordinary movie, in place, keeping its orientation, metadata and exact durations.
///
/// The file must have been written with fragments (its movie atom declares them with `mvex`).
/// Every whole fragment is kept; a fragment cut short is dropped. The fragment headers are
/// hidden inside one 64-bit `mdat` and a complete `moov` is appended, exactly as a normal finish
/// does.
public enum MovieRepair {
    /// What a repair recovered.
    public struct Report: Sendable, CustomStringConvertible {
        /// Whole fragments found.
        public var fragmentCount: Int
        /// Samples per track (PCM frames for audio), by track ID.
        public var sampleCounts: [UInt32: UInt64]
        /// The repaired movie's duration in ``movieTimescale`` ticks.
        public var duration: UInt64
        /// The movie's time scale from `mvhd`: ticks per second.
        public var movieTimescale: UInt32
        /// Bytes of a cut-off fragment that were dropped.
        public var discardedBytes: UInt64
        /// The video track's orientation.
        public var orientation: VideoOrientation?

        /// A textual representation of the report: the fragments and seconds recovered, the samples
        /// per track, the orientation, and any bytes dropped.
        public var description: String {
            let seconds = movieTimescale == 0 ? 0 : Double(duration) / Double(movieTimescale)
            let tracks = sampleCounts.keys.sorted().map { "track \($0): \(sampleCounts[$0]!) samples" }.joined(separator: ", ")
            return "recovered \(fragmentCount) fragments, \(seconds) s (\(tracks))"
                + (orientation.map { ", orientation \($0)" } ?? "") + (discardedBytes > 0 ? ", dropped \(discardedBytes) bytes of a cut-off fragment" : "")
        }
    }

    /// Why a file cannot be repaired.
    public struct RepairError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The kinds of repair failure. New kinds may be added; compare with the static members.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private let name: String
            private init(_ name: String) { self.name = name }
            /// The code's name, as in source.
            public var description: String { name }

            /// There is no movie atom at all: the recording died before anything was written,
            /// or this is not a QuickTime/MP4 file.
            public static let noMovieHeader = Code("noMovieHeader")
            /// The movie is already finished: nothing to repair.
            public static let alreadyFinished = Code("alreadyFinished")
            /// The movie atom does not declare fragments, so nothing after it can be found.
            public static let notFragmented = Code("notFragmented")
            /// A track uses a format this library cannot describe again.
            public static let unsupportedTrack = Code("unsupportedTrack")
            /// The fragments are not laid out as this library writes them.
            public static let unsupportedLayout = Code("unsupportedLayout")
        }

        /// The kind of failure.
        public let code: Code
        /// A sentence that says why the file cannot be repaired.
        public let message: String
        /// A textual representation of the error: its ``message``.
        public var description: String { message }
    }

    /// Repairs the movie in `file` (read and written in place).
    /// - Throws: ``RepairError`` for a file that cannot be repaired (the file is left as it was),
    ///   ``MovieFormatError`` when its movie atom does not parse, or the file's own errors.
    @discardableResult
    public static func repair(_ file: any MovieByteSource & MovieByteSink) throws -> Report {
        let tree = try AtomTree(source: file, stoppingAtDamage: true)
        let moovIndex = try fragmentedMovieAtomIndex(in: tree)
        let moov = tree.atoms[moovIndex]
        guard try movieAtomMatchesChecksum(moov, in: file) else {
            throw RepairError(code: .noMovieHeader, message: "the movie atom ('moov') does not match its checksum: the file's header was damaged before it reached the disk; nothing can be recovered")
        }
        let info = try MovieInfo(tree: tree)
        guard info.movieHeader.timescale > 0 else {
            throw RepairError(code: .unsupportedTrack, message: "the movie header's time scale is 0, so no duration can be expressed")
        }
        let intact = try intactFragments(wholeFragments(in: tree, after: moovIndex), in: file, moov: moov)
        let (fragments, mediaEnd) = try soundFragments(intact, in: file, moov: moov, info: info)
        let writer = MovieWriter(repairing: file, configuration: configuration(of: info), mediaEnd: mediaEnd)
        let tracks = try adoptTracks(of: info, into: writer)
        // Gather every run first: the time shift comes from the video's first presentation.
        let runs = try readRuns(of: fragments, moov: moov, tracks: tracks)
        let endTimes = try adopt(runs, shiftedBy: presentationShift(of: runs, tracks: tracks), tracks: tracks, into: writer)
        guard runs.contains(where: { !$0.samples.isEmpty || $0.frames > 0 }) else {
            throw RepairError(code: .noMovieHeader, message: "the file holds no whole fragment: the recording ended before its first fragment was written; nothing can be recovered")
        }
        // A video track left without a picture (its fragments' media lost) makes a movie readers
        // refuse; nothing of such a recording is worth keeping.
        for video in tracks.videoTrackIDs where !runs.contains(where: { $0.track == video && !$0.samples.isEmpty }) {
            throw RepairError(code: .noMovieHeader, message: "no picture of video track \(video) survived intact: the recording's first fragment was lost; nothing can be recovered")
        }
        let discarded = tree.fileSize - mediaEnd
        let summary = try writer.finish(endTimes: endTimes)
        try file.truncate(to: summary.fileSize)
        var counts: [UInt32: UInt64] = [:]
        for (original, id) in tracks.ids { counts[original] = summary.sampleCounts[id] ?? 0 }
        return Report(fragmentCount: fragments.count, sampleCounts: counts, duration: summary.duration,
                      movieTimescale: summary.movieTimescale, discardedBytes: discarded,
                      orientation: info.videoTrack?.orientation)
    }

    /// A fragment: a `moof` and the `mdat` after it.
    private typealias Fragment = (moof: AtomNode, mdat: AtomNode)

    /// The tracks of the file, as the repairing writer holds them, by their IDs in the file.
    private struct AdoptedTracks {
        var ids: [UInt32: TrackID] = [:]
        var timescales: [UInt32: UInt32] = [:]
        var videoTrackIDs: Set<UInt32> = []
        /// AAC tracks, whose runs list each access unit's size.
        var aacTrackIDs: Set<UInt32> = []
        /// Timed metadata tracks, whose every `tfdt` places its run.
        var metadataTrackIDs: Set<UInt32> = []
    }

    /// The samples of one `trun`, where they lie in the file and when they start.
    private struct Run {
        var track: UInt32
        var offset: UInt64
        var baseTime: Int64
        /// Video samples or AAC access units: size, duration, flags, composition offset.
        var samples: [(size: UInt32, duration: UInt32, flags: UInt32, compositionOffset: Int32)]
        /// PCM frames, for audio.
        var frames: Int
    }

    /// The defaults a track fragment's samples fall back on: its `tfhd`'s, else its track's `trex`.
    private struct SampleDefaults {
        var duration: UInt32
        var size: UInt32
        var flags: UInt32
    }

    /// The index of the file's movie atom among its top-level atoms, once the file is known to be
    /// a fragmented movie in this library's layout (ftyp, wide, moov) that was never finished.
    private static func fragmentedMovieAtomIndex(in tree: AtomTree) throws -> Int {
        guard let moovIndex = tree.atoms.firstIndex(where: { $0.type == "moov" && !$0.isTruncated }) else {
            throw RepairError(code: .noMovieHeader,
                              message: "the file has no complete movie atom ('moov'): the recording ended before its first fragment was written, or it is not a QuickTime movie; nothing can be recovered")
        }
        let moov = tree.atoms[moovIndex]
        guard moov.child("mvex") != nil else {
            if tree.atoms.contains(where: { $0.type == "mdat" }) && moovIndex == tree.atoms.count - 1 {
                throw RepairError(code: .alreadyFinished, message: "the movie is already finished: it has a complete movie atom and needs no repair")
            }
            throw RepairError(code: .notFragmented, message: "the movie atom does not declare fragments ('mvex'), so the media after it cannot be found")
        }
        guard moov.offset == MovieFileHeader.mdatHeaderOffset, tree.atoms.count > 1, tree.atoms[1].type == "wide" else {
            throw RepairError(code: .unsupportedLayout, message: "the file does not have this library's fragmented layout (ftyp, wide, moov): it cannot be finished in place")
        }
        return moovIndex
    }

    /// The whole fragments after the movie atom, up to the first one cut short or missing its
    /// `mdat`, and where the media ends: after the last whole fragment.
    private static func wholeFragments(in tree: AtomTree, after moovIndex: Int) -> (fragments: [Fragment], mediaEnd: UInt64) {
        let moov = tree.atoms[moovIndex]
        var mediaEnd = moov.offset + moov.size
        var fragments: [Fragment] = []
        var index = moovIndex + 1
        while index + 1 < tree.atoms.count {
            let moof = tree.atoms[index], mdat = tree.atoms[index + 1]
            guard moof.type == "moof", mdat.type == "mdat", !moof.isTruncated, !mdat.isTruncated else { break }
            fragments.append((moof, mdat))
            mediaEnd = mdat.offset + mdat.size
            index += 2
        }
        return (fragments, mediaEnd)
    }

    /// The fragments up to the first whose header and media do not match the checksum its `moof`
    /// carries (``MediaChecksumAtom``): after a power cut, pages under a header that did land may
    /// be missing or zero-filled, and such a fragment must not go into the repaired movie. A
    /// fragment without a checksum (a movie written without them) is kept as before.
    private static func intactFragments(_ whole: (fragments: [Fragment], mediaEnd: UInt64), in file: any MovieByteSource,
                                        moov: AtomNode) throws -> (fragments: [Fragment], mediaEnd: UInt64) {
        var kept: [Fragment] = []
        var mediaEnd = moov.offset + moov.size
        // A recording whose header carries a checksum gave every fragment one: a fragment
        // without (its checksum atom zero-filled) is damaged too.
        let required = moov.children("uuid").contains { $0.size == UInt64(MediaChecksumAtom.size) }
        for fragment in whole.fragments {
            guard try mediaMatchesChecksum(of: fragment, in: file, required: required) else { break }
            kept.append(fragment)
            mediaEnd = fragment.mdat.offset + fragment.mdat.size
        }
        return (kept, mediaEnd)
    }

    /// The fragments up to the first holding a video sample that is not a sequence of whole NAL
    /// units (four-byte lengths, as this library writes them, each followed by a NAL header
    /// with its forbidden bit clear): the check for fragments that carry no checksum, and a
    /// second one for those that do.
    private static func soundFragments(_ intact: (fragments: [Fragment], mediaEnd: UInt64), in file: any MovieByteSource,
                                       moov: AtomNode, info: MovieInfo) throws -> (fragments: [Fragment], mediaEnd: UInt64) {
        var probe = AdoptedTracks()
        for track in info.tracks {
            probe.ids[track.trackID] = TrackID(rawValue: track.trackID)
            if track.mediaType == "vide" { probe.videoTrackIDs.insert(track.trackID) }
            if track.codec == AACSampleEntry.format { probe.aacTrackIDs.insert(track.trackID) }
            if track.metadataEntry != nil { probe.metadataTrackIDs.insert(track.trackID) }
        }
        let hevcTrackIDs = Set(info.tracks.filter { $0.codec == "hvc1" || $0.codec == "hev1" }.map(\.trackID))
        var kept: [Fragment] = []
        var mediaEnd = moov.offset + moov.size
        for fragment in intact.fragments {
            let runs = try readRuns(of: [fragment], moov: moov, tracks: probe)
            guard try runs.allSatisfy({ run in
                try !probe.videoTrackIDs.contains(run.track) || samplesAreWholeNALUnits(run, hevc: hevcTrackIDs.contains(run.track), in: file)
            }) else { break }
            kept.append(fragment)
            mediaEnd = fragment.mdat.offset + fragment.mdat.size
        }
        return (kept, mediaEnd)
    }

    /// Whether every sample of the video `run` is a sequence of whole, length-prefixed NAL units:
    /// for H.264 with a type other than 0, for HEVC (`hevc`) with a temporal layer ID.
    private static func samplesAreWholeNALUnits(_ run: Run, hevc: Bool, in file: any MovieByteSource) throws -> Bool {
        let total = run.samples.reduce(0) { $0 + Int($1.size) }
        let bytes = try file.read(at: run.offset, count: total)
        guard bytes.count == total else { return false }
        var start = 0
        for sample in run.samples {
            let end = start + Int(sample.size)
            var position = start
            while position < end {
                guard position + (hevc ? 6 : 5) <= end else { return false }
                let length = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
                let header = bytes[position + 4]
                let typed = hevc ? length >= 2 && bytes[position + 5] & 7 != 0 : header & 0x1F != 0
                guard length > 0, position + 4 + length <= end, header & 0x80 == 0, typed else { return false }
                position += 4 + length
            }
            start = end
        }
        return true
    }

    /// Whether the header `moov` matches the checksum it carries as its last atom; `true` when
    /// it carries none.
    private static func movieAtomMatchesChecksum(_ moov: AtomNode, in file: any MovieByteSource) throws -> Bool {
        guard let node = moov.children("uuid").last, node.size == UInt64(MediaChecksumAtom.size),
              let atom = MediaChecksumAtom(atom: try file.read(at: node.offset, count: MediaChecksumAtom.size)) else {
            return true
        }
        let covered = try file.read(at: moov.offset, count: Int(node.offset - moov.offset))
        return node.offset + node.size == moov.offset + moov.size && CRC32C.checksum(covered) == atom.checksum
    }

    /// Whether `fragment` matches its checksum; when it carries none, whether none is `required`.
    private static func mediaMatchesChecksum(of fragment: Fragment, in file: any MovieByteSource, required: Bool) throws -> Bool {
        guard let node = fragment.moof.children("uuid").first(where: { $0.size == UInt64(MediaChecksumAtom.size) }),
              let atom = MediaChecksumAtom(atom: try file.read(at: node.offset, count: MediaChecksumAtom.size)) else {
            return !required
        }
        let start = fragment.mdat.offset + UInt64(fragment.mdat.headerSize)
        guard atom.mediaLength == fragment.mdat.size - UInt64(fragment.mdat.headerSize),
              node.offset + node.size == fragment.moof.offset + fragment.moof.size else { return false }
        var crc = CRC32C()
        try file.read(at: fragment.moof.offset, count: Int(node.offset - fragment.moof.offset)).withUnsafeBytes { crc.update($0) }
        var offset = start, left = atom.mediaLength
        while left > 0 {
            let block = try file.read(at: offset, count: Int(min(left, 1 << 20)))
            guard !block.isEmpty else { return false }
            block.withUnsafeBytes { crc.update($0) }
            offset += UInt64(block.count)
            left -= UInt64(block.count)
        }
        return crc.value == atom.checksum
    }

    /// The repairing writer's settings: the movie's time scale, creation time and metadata, with
    /// fragments, so finishing hides the fragment headers in one 64-bit `mdat`.
    private static func configuration(of info: MovieInfo) -> MovieWriter.Configuration {
        var configuration = MovieWriter.Configuration(creationTime: info.movieHeader.creationTime)
        configuration.movieTimescale = info.movieHeader.timescale
        configuration.fragmentInterval = .seconds(1)
        configuration.metadata = info.metadata
        return configuration
    }

    /// Adds each of the file's tracks to `writer`, with its sample description, time scale and
    /// orientation.
    private static func adoptTracks(of info: MovieInfo, into writer: MovieWriter) throws -> AdoptedTracks {
        var tracks = AdoptedTracks()
        for track in info.tracks {
            guard track.mediaHeader.timescale > 0 else {
                throw RepairError(code: .unsupportedTrack, message: "track \(track.trackID)'s time scale is 0")
            }
            guard let entry = track.sampleDescription else {
                throw RepairError(code: .unsupportedTrack, message: "track \(track.trackID) has no sample description")
            }
            switch track.mediaType {
            case "vide":
                let sample = try VideoSampleEntry(entry)
                tracks.ids[track.trackID] = writer.adoptTrack(.video(VideoTrackFormat(
                    sampleEntry: sample, timescale: track.mediaHeader.timescale,
                    orientation: track.orientation ?? .up)))
                tracks.videoTrackIDs.insert(track.trackID)
            case "soun" where entry.format == AACSampleEntry.format:
                var aac = try AACSampleEntry(entry).aac
                // The header's edit starts the media after the encoder's delay.
                aac.primingFrames = UInt32(clamping: track.editList.last { $0.mediaTime >= 0 }?.mediaTime ?? 0)
                tracks.ids[track.trackID] = writer.adoptTrack(.audio(AudioTrackFormat(aac: aac)))
                tracks.aacTrackIDs.insert(track.trackID)
            case "soun":
                let pcm = try SoundSampleEntry(entry).pcm
                do { try pcm.validate() } catch {
                    throw RepairError(code: .unsupportedTrack, message: "track \(track.trackID): \(error.message)")
                }
                tracks.ids[track.trackID] = writer.adoptTrack(.audio(AudioTrackFormat(pcm: pcm)))
            case "meta" where entry.format == MetadataSampleEntry.format:
                let keys = try MetadataSampleEntry(entry).keys
                let described = track.describedTrackIDs.first.flatMap { tracks.ids[$0] }
                tracks.ids[track.trackID] = writer.adoptTrack(.metadata(MetadataTrackFormat(
                    keys: keys, timescale: track.mediaHeader.timescale, describedTrack: described)))
                tracks.metadataTrackIDs.insert(track.trackID)
            default:
                throw RepairError(code: .unsupportedTrack, message: "track \(track.trackID) is '\(track.mediaType)', which this library does not write")
            }
            tracks.timescales[track.trackID] = track.mediaHeader.timescale
        }
        return tracks
    }

    /// Reads every run of the fragments' known tracks, in file order. Times continue from run to
    /// run; only a track's first `tfdt` places it. (This library writes them continuous; a
    /// hostile file must not send decode times backwards.) A timed metadata track's runs leave
    /// gaps while no value changes, so each of its `tfdt`s places its run, never before the
    /// previous run's end.
    private static func readRuns(of fragments: [Fragment], moov: AtomNode, tracks: AdoptedTracks) throws -> [Run] {
        var runs: [Run] = []
        var nextTime: [UInt32: Int64] = [:]
        for (moof, mdat) in fragments {
            for traf in moof.children("traf") {
                guard let header = try traf.child("tfhd")?.decode(TrackFragmentHeaderAtom.self), tracks.ids[header.trackID] != nil else { continue }
                let defaults = sampleDefaults(of: header, moov: moov)
                let declared = try traf.child("tfdt")?.decode(TrackFragmentDecodeTimeAtom.self).baseMediaDecodeTime ?? 0
                let placed = Int64(min(declared, UInt64(Int64.max / 4)))
                var time = nextTime[header.trackID] ?? placed
                if tracks.metadataTrackIDs.contains(header.trackID) { time = max(time, placed) }
                for trunNode in traf.children("trun") {
                    let listsSamples = tracks.videoTrackIDs.contains(header.trackID) || tracks.aacTrackIDs.contains(header.trackID)
                        || tracks.metadataTrackIDs.contains(header.trackID)
                    runs.append(try readRun(trunNode.decode(TrackRunAtom.self), of: header, defaults: defaults,
                                            listsSamples: listsSamples,
                                            fragment: (moof, mdat), time: &time))
                }
                nextTime[header.trackID] = time
            }
        }
        return runs
    }

    /// The sample defaults of a track fragment: its `tfhd`'s, else those of its track's `trex`.
    private static func sampleDefaults(of header: TrackFragmentHeaderAtom, moov: AtomNode) -> SampleDefaults {
        let trex = moov.child("mvex")?.children("trex").compactMap { try? $0.decode(TrackExtendsAtom.self) }
            .first { $0.trackID == header.trackID }
        return SampleDefaults(duration: header.defaultSampleDuration ?? trex?.defaultSampleDuration ?? 0,
                              size: header.defaultSampleSize ?? trex?.defaultSampleSize ?? 0,
                              flags: header.defaultSampleFlags ?? trex?.defaultSampleFlags ?? 0)
    }

    /// Reads one `trun` of the track fragment `header` starts, at `time`, which it advances past
    /// the run, and checks that its media lies inside the fragment's `mdat`.
    private static func readRun(_ trun: TrackRunAtom, of header: TrackFragmentHeaderAtom, defaults: SampleDefaults,
                                listsSamples: Bool, fragment: Fragment, time: inout Int64) throws -> Run {
        let (moof, mdat) = fragment
        guard let base = Int64(exactly: header.baseDataOffset ?? moof.offset), base < Int64.max / 2 else {
            throw MovieFormatError(code: .invalidValue, atom: "tfhd", message: "a 'tfhd' base data offset lies beyond any file")
        }
        let start = base + Int64(trun.dataOffset ?? 0)
        var run = Run(track: header.trackID, offset: UInt64(max(0, start)), baseTime: time, samples: [], frames: 0)
        // Every sample has at least one byte: a count beyond the media is hostile.
        guard UInt64(trun.sampleCount) <= mdat.size else {
            throw MovieFormatError(code: .tableLargerThanAtom, atom: "trun",
                                   message: "a 'trun' of track \(header.trackID) claims \(trun.sampleCount) samples in \(mdat.size) bytes of media")
        }
        let bytes = try listsSamples ? readSamples(of: trun, defaults: defaults, into: &run, time: &time)
            : readAudioFrames(of: trun, track: header.trackID, defaults: defaults, into: &run, time: &time)
        guard start >= Int64(mdat.offset) + Int64(mdat.headerSize), bytes <= mdat.size,
              UInt64(start) <= mdat.offset + mdat.size - bytes else {
            throw MovieFormatError(code: .invalidValue, atom: "trun",
                                   message: "a 'trun' of track \(header.trackID) points outside its fragment's media data")
        }
        return run
    }

    /// Enters a video or AAC `trun`'s samples in `run`, each field from the run or else the
    /// defaults, advances `time` by their durations, and returns their size in bytes.
    private static func readSamples(of trun: TrackRunAtom, defaults: SampleDefaults, into run: inout Run,
                                         time: inout Int64) -> UInt64 {
        var bytes: UInt64 = 0
        for index in 0..<Int(trun.sampleCount) {
            let s = index < trun.samples.count ? trun.samples[index] : TrackRunAtom.Sample()
            let entry = (size: s.size ?? defaults.size, duration: s.duration ?? defaults.duration,
                         flags: s.flags ?? (index == 0 ? trun.firstSampleFlags : nil) ?? defaults.flags,
                         compositionOffset: s.compositionOffset ?? 0)
            run.samples.append(entry)
            bytes += UInt64(entry.size)
            time += Int64(entry.duration)
        }
        return bytes
    }

    /// Enters an audio `trun`'s PCM frames in `run`, advances `time` past them, and returns
    /// their size in bytes. This library's PCM runs use the defaults: one frame per sample,
    /// duration 1.
    private static func readAudioFrames(of trun: TrackRunAtom, track: UInt32, defaults: SampleDefaults, into run: inout Run,
                                        time: inout Int64) throws -> UInt64 {
        guard trun.samples.isEmpty, defaults.duration == 1 else {
            throw RepairError(code: .unsupportedTrack, message: "track \(track)'s audio fragments are not PCM runs of one frame per sample")
        }
        run.frames = Int(trun.sampleCount)
        time += Int64(trun.sampleCount)
        return UInt64(trun.sampleCount) * UInt64(defaults.size)
    }

    /// The shift that makes the first presented video frame time 0, as (ticks, timescale):
    /// fragments shift every track by the video's delay.
    private static func presentationShift(of runs: [Run], tracks: AdoptedTracks) -> (Int64, UInt32) {
        guard let video = tracks.videoTrackIDs.min() else { return (0, 1) }
        var first: Int64?
        for run in runs where run.track == video {
            var t = run.baseTime
            for s in run.samples {
                first = min(first ?? .max, t + Int64(s.compositionOffset))
                t += Int64(s.duration)
            }
        }
        return (first ?? 0, tracks.timescales[video] ?? 1)
    }

    /// Enters every run in `writer`, moved by `shift`, and returns each video track's end time.
    private static func adopt(_ runs: [Run], shiftedBy shift: (Int64, UInt32), tracks: AdoptedTracks,
                              into writer: MovieWriter) throws -> [TrackID: Int64] {
        var endTimes: [TrackID: Int64] = [:]
        for run in runs {
            guard let id = tracks.ids[run.track], let scale = tracks.timescales[run.track] else { continue }
            let start = run.baseTime - rescale(shift.0, from: shift.1, to: scale)
            if tracks.metadataTrackIDs.contains(run.track) {
                var t = start
                var samples: [(size: UInt32, time: Int64)] = []
                for s in run.samples {
                    samples.append((s.size, t))
                    t += Int64(s.duration)
                }
                try writer.adoptMetadataRun(id, at: run.offset, samples: samples)
            } else if tracks.videoTrackIDs.contains(run.track) {
                var t = start
                var entries: [(size: UInt32, decodeTime: Int64, compositionOffset: Int32, isSync: Bool)] = []
                for s in run.samples {
                    entries.append((s.size, t, s.compositionOffset, s.flags & 0x0001_0000 == 0))  // is_non_sync_sample clear
                    t += Int64(s.duration)
                }
                try writer.adoptVideoRun(id, at: run.offset, samples: entries)
                endTimes[id] = t
            } else if tracks.aacTrackIDs.contains(run.track) {
                // Each access unit lasts 1024 frames; the first run's time is where the first
                // input frame sits (see FragmentBuilder's packet runs).
                guard run.samples.allSatisfy({ $0.duration == UInt32(AACFormat.framesPerPacket) }) else {
                    throw RepairError(code: .unsupportedTrack, message: "track \(run.track)'s AAC fragments have access units that do not last 1024 frames")
                }
                try writer.adoptAudioPacketRun(id, at: run.offset, sizes: run.samples.map(\.size), startTime: start)
            } else {
                try writer.adoptAudioRun(id, at: run.offset, frames: run.frames, startTime: start)
            }
        }
        return endTimes
    }
}
