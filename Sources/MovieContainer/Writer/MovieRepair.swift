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
        let info = try MovieInfo(tree: tree)
        guard info.movieHeader.timescale > 0 else {
            throw RepairError(code: .unsupportedTrack, message: "the movie header's time scale is 0, so no duration can be expressed")
        }

        var configuration = MovieWriter.Configuration(creationTime: info.movieHeader.creationTime)
        configuration.movieTimescale = info.movieHeader.timescale
        configuration.fragmentInterval = .seconds(1)
        configuration.metadata = info.metadata
        // The media ends after the last whole fragment.
        var mediaEnd = moov.offset + moov.size
        var fragments: [(moof: AtomNode, mdat: AtomNode)] = []
        var index = moovIndex + 1
        while index + 1 < tree.atoms.count {
            let moof = tree.atoms[index], mdat = tree.atoms[index + 1]
            guard moof.type == "moof", mdat.type == "mdat", !moof.isTruncated, !mdat.isTruncated else { break }
            fragments.append((moof, mdat))
            mediaEnd = mdat.offset + mdat.size
            index += 2
        }
        let writer = MovieWriter(repairing: file, configuration: configuration, mediaEnd: mediaEnd)
        var trackIDs: [UInt32: TrackID] = [:]
        var timescales: [UInt32: UInt32] = [:]
        var videoTrackIDs: Set<UInt32> = []
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
                trackIDs[track.trackID] = writer.adoptTrack(.video(VideoTrackFormat(
                    sampleEntry: sample, timescale: track.mediaHeader.timescale,
                    orientation: track.orientation ?? .up)))
                videoTrackIDs.insert(track.trackID)
            case "soun":
                let pcm = try SoundSampleEntry(entry).pcm
                do { try pcm.validate() } catch {
                    throw RepairError(code: .unsupportedTrack, message: "track \(track.trackID): \(error.message)")
                }
                trackIDs[track.trackID] = writer.adoptTrack(.audio(AudioTrackFormat(pcm: pcm)))
            default:
                throw RepairError(code: .unsupportedTrack, message: "track \(track.trackID) is '\(track.mediaType)', which this library does not write")
            }
            timescales[track.trackID] = track.mediaHeader.timescale
        }

        // Gather every run first: the time shift comes from the video's first presentation.
        struct Run {
            var track: UInt32
            var offset: UInt64
            var baseTime: Int64
            /// Video samples: size, duration, flags, composition offset.
            var samples: [(size: UInt32, duration: UInt32, flags: UInt32, compositionOffset: Int32)]
            /// PCM frames, for audio.
            var frames: Int
        }
        var runs: [Run] = []
        // Times continue from run to run; only a track's first `tfdt` places it. (This library
        // writes them continuous; a hostile file must not send decode times backwards.)
        var nextTime: [UInt32: Int64] = [:]
        for (moof, mdat) in fragments {
            for traf in moof.children("traf") {
                guard let header = try traf.child("tfhd")?.decode(TrackFragmentHeaderAtom.self), trackIDs[header.trackID] != nil else { continue }
                let trex = moov.child("mvex")?.children("trex").compactMap { try? $0.decode(TrackExtendsAtom.self) }
                    .first { $0.trackID == header.trackID }
                let defaultDuration = header.defaultSampleDuration ?? trex?.defaultSampleDuration ?? 0
                let defaultSize = header.defaultSampleSize ?? trex?.defaultSampleSize ?? 0
                let defaultFlags = header.defaultSampleFlags ?? trex?.defaultSampleFlags ?? 0
                let declared = try traf.child("tfdt")?.decode(TrackFragmentDecodeTimeAtom.self).baseMediaDecodeTime ?? 0
                var time = nextTime[header.trackID] ?? Int64(min(declared, UInt64(Int64.max / 4)))
                for trunNode in traf.children("trun") {
                    let trun = try trunNode.decode(TrackRunAtom.self)
                    guard let base = Int64(exactly: header.baseDataOffset ?? moof.offset), base < Int64.max / 2 else {
                        throw MovieFormatError(code: .invalidValue, atom: "tfhd", message: "a 'tfhd' base data offset lies beyond any file")
                    }
                    let start = base + Int64(trun.dataOffset ?? 0)
                    var run = Run(track: header.trackID, offset: UInt64(max(0, start)), baseTime: time, samples: [], frames: 0)
                    var bytes: UInt64 = 0
                    // Every sample has at least one byte: a count beyond the media is hostile.
                    guard UInt64(trun.sampleCount) <= mdat.size else {
                        throw MovieFormatError(code: .tableLargerThanAtom, atom: "trun",
                                               message: "a 'trun' of track \(header.trackID) claims \(trun.sampleCount) samples in \(mdat.size) bytes of media")
                    }
                    if videoTrackIDs.contains(header.trackID) {
                        for index in 0..<Int(trun.sampleCount) {
                            let s = index < trun.samples.count ? trun.samples[index] : TrackRunAtom.Sample()
                            let entry = (size: s.size ?? defaultSize, duration: s.duration ?? defaultDuration,
                                         flags: s.flags ?? (index == 0 ? trun.firstSampleFlags : nil) ?? defaultFlags,
                                         compositionOffset: s.compositionOffset ?? 0)
                            run.samples.append(entry)
                            bytes += UInt64(entry.size)
                            time += Int64(entry.duration)
                        }
                    } else {
                        // This library's PCM runs use the defaults: one frame per sample, duration 1.
                        guard trun.samples.isEmpty, defaultDuration == 1 else {
                            throw RepairError(code: .unsupportedTrack, message: "track \(header.trackID)'s audio fragments are not PCM runs of one frame per sample")
                        }
                        run.frames = Int(trun.sampleCount)
                        bytes = UInt64(trun.sampleCount) * UInt64(defaultSize)
                        time += Int64(trun.sampleCount)
                    }
                    guard start >= Int64(mdat.offset) + Int64(mdat.headerSize), bytes <= mdat.size,
                          UInt64(start) <= mdat.offset + mdat.size - bytes else {
                        throw MovieFormatError(code: .invalidValue, atom: "trun",
                                               message: "a 'trun' of track \(header.trackID) points outside its fragment's media data")
                    }
                    runs.append(run)
                }
                nextTime[header.trackID] = time
            }
        }
        // Fragments shift every track by the video's delay; the first presented frame is time 0.
        var shift: (Int64, UInt32) = (0, 1)
        if let video = videoTrackIDs.min() {
            var first: Int64?
            for run in runs where run.track == video {
                var t = run.baseTime
                for s in run.samples {
                    first = min(first ?? .max, t + Int64(s.compositionOffset))
                    t += Int64(s.duration)
                }
            }
            shift = (first ?? 0, timescales[video] ?? 1)
        }
        var endTimes: [TrackID: Int64] = [:]
        for run in runs {
            guard let id = trackIDs[run.track], let scale = timescales[run.track] else { continue }
            let start = run.baseTime - rescale(shift.0, from: shift.1, to: scale)
            if videoTrackIDs.contains(run.track) {
                var t = start
                var entries: [(size: UInt32, decodeTime: Int64, compositionOffset: Int32, isSync: Bool)] = []
                for s in run.samples {
                    entries.append((s.size, t, s.compositionOffset, s.flags & 0x0001_0000 == 0))  // is_non_sync_sample clear
                    t += Int64(s.duration)
                }
                try writer.adoptVideoRun(id, at: run.offset, samples: entries)
                endTimes[id] = t
            } else {
                try writer.adoptAudioRun(id, at: run.offset, frames: run.frames, startTime: start)
            }
        }
        guard runs.contains(where: { !$0.samples.isEmpty || $0.frames > 0 }) else {
            throw RepairError(code: .noMovieHeader, message: "the file holds no whole fragment: the recording ended before its first fragment was written; nothing can be recovered")
        }
        let discarded = tree.fileSize - mediaEnd
        let summary = try writer.finish(endTimes: endTimes)
        try file.truncate(to: summary.fileSize)
        var counts: [UInt32: UInt64] = [:]
        for (original, id) in trackIDs { counts[original] = summary.sampleCounts[id] ?? 0 }
        return Report(fragmentCount: fragments.count, sampleCounts: counts, duration: summary.duration,
                      movieTimescale: summary.movieTimescale, discardedBytes: discarded,
                      orientation: info.videoTrack?.orientation)
    }
}
