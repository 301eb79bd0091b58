import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// One file of a recording: the movie file, its writer and tracks, and the segment's place on
/// the recording's timeline. A recording that never switches files has one.
///
/// Created on the thread that starts the recording (the first) or by the writing thread (the
/// others), then used by the writing thread alone.
final class RecordingSegment: @unchecked Sendable {
    // @unchecked: handed to the writing thread before use, then used by it alone.
    let index: Int
    let path: String
    let orientation: VideoOrientation
    let file: RandomAccessFile
    let writer: MovieWriter
    let videoTrack: TrackID
    let audioTrack: TrackID?
    /// The timed metadata tracks, in the order of ``Tracks/metadata``.
    let metadataTracks: [TrackID]
    /// Each metadata track's last sample: its time in video ticks from the segment's start and
    /// its values.
    private var lastMetadata: [Int: (time: Int64, items: [TimedMetadataItem])] = [:]
    /// Where the segment starts on the recording's timeline, in video and audio ticks; set when
    /// the writing thread opens it (the first segment starts at 0).
    var start: (video: Int64, audio: Int64) = (0, 0)
    /// The decode time of the segment's first video sample, in track ticks (negative with
    /// B-frames).
    var firstDecodeTime: Int64?
    /// Where the audio written so far ends, in ticks of the sample rate from the segment's start.
    var audioEnd: Int64?
    /// Whether the video of this segment is complete (a later segment's first frame came, or
    /// the recording's video ended), and where it ends, in video ticks from the segment's start.
    var videoEnd: Int64?
    /// Where the audio is cut, in ticks of the sample rate from the segment's start: where the
    /// next segment's audio starts, or the recording's video end.
    var audioLimit: Int64?
    var audioEnded: Bool
    /// How long ``finish(audioRate:timescale:)`` took.
    var finalizationDuration: Duration = .zero

    /// What a segment's tracks hold.
    struct Tracks {
        var video: VideoTrackFormat
        var audio: AudioTrackFormat?
        /// The timed metadata tracks: the orientation first, then the location and the
        /// application's keys as the recording asked; each describes the video track.
        var metadata: [MetadataTrackFormat] = []
    }

    /// Creates the segment's file (or takes `file`, created already) and describes its tracks.
    /// - Throws: ``RecordingError`` naming what failed; no file is left behind.
    init(index: Int, path: String, file: RandomAccessFile? = nil, overwrite: Bool, orientation: VideoOrientation,
         tracks: Tracks, configuration: MovieWriter.Configuration) throws(RecordingError) {
        self.index = index
        self.path = path
        self.orientation = orientation
        audioEnded = tracks.audio == nil
        do {
            self.file = try file ?? RandomAccessFile(path: path, mode: overwrite ? .createOrTruncate : .createNew)
        } catch let error as FileError {
            throw RecordingError(error.code == .alreadyExists ? .fileExists : .fileError,
                                 "MovieFileOutput: creating the movie file: \(error)", underlyingError: error)
        } catch {
            throw RecordingError(.fileError, "MovieFileOutput: creating the movie file \(path): \(error)", underlyingError: error)
        }
        let writer = MovieWriter(sink: self.file, configuration: configuration)
        self.writer = writer
        var video = tracks.video
        video.orientation = orientation
        do {
            videoTrack = try writer.addVideoTrack(video)
            audioTrack = try tracks.audio.map { try writer.addAudioTrack($0) }
            let described = videoTrack
            metadataTracks = try tracks.metadata.map { format in
                var format = format
                format.describedTrack = described
                return try writer.addMetadataTrack(format)
            }
        } catch {
            try? self.file.close()
            try? RandomAccessFile.remove(path)
            throw RecordingError(.fileError, "MovieFileOutput: describing the tracks of \(path): \(error)", underlyingError: error)
        }
    }

    /// The writer's fragmenting, durability and metadata for a segment created at
    /// `creationTime`, with the creation date and the software's name unless `metadata` has them.
    static func configuration(_ settings: RecordingPipeline.Settings, creationTime: QuickTimeTimestamp) -> MovieWriter.Configuration {
        var items = settings.metadata
        if !items.contains(where: { $0.key == MetadataItem.creationDate(creationTime).key }) {
            items.append(.creationDate(creationTime))
        }
        if !items.contains(where: { $0.key == MetadataItem.software("").key }) { items.append(.software("MovieRecorder")) }
        var configuration = MovieWriter.Configuration(creationTime: creationTime, metadata: items)
        configuration.fragmentInterval = settings.fragmentInterval
        configuration.durability = settings.durability
        configuration.checksumsFragments = true  // repair keeps only media that reached the disk intact
        return configuration
    }

    /// Where the segment's video lies on the recording's timeline, in video ticks (empty until
    /// its end is known).
    var span: Range<Int64> { start.video..<(start.video + max(0, videoEnd ?? 0)) }

    /// Whether both tracks are complete, so the segment can be finished.
    var isComplete: Bool { videoEnd != nil && audioEnded }

    /// Appends an encoded sample whose times are on the recording's timeline; `start` is the
    /// segment's start in video ticks.
    func appendVideo(_ sample: EncodedVideoSample, start: Int64) throws {
        let decode = sample.decodeTime - start
        if firstDecodeTime == nil { firstDecodeTime = decode }
        try writer.appendVideoSample(sample.data, to: videoTrack, decodeTime: decode,
                                     presentationTime: sample.presentationTime - start, isSync: sample.isKeyframe)
    }

    /// Appends a timed metadata sample to metadata track `track` at `time` (video ticks from the
    /// segment's start), unless it repeats the track's last values. A time not after the last
    /// sample's moves to one tick after it.
    func appendMetadata(_ items: [TimedMetadataItem], track: Int, time: Int64) throws {
        guard track < metadataTracks.count else { return }
        let last = lastMetadata[track]
        if let last, last.items == items { return }
        let at = max(time, 0, last.map { $0.time + 1 } ?? 0)
        try writer.appendMetadataSample(items, to: metadataTracks[track], time: at)
        lastMetadata[track] = (at, items)
        setMovieLocation(from: items)
    }

    /// The movie's location item (`com.apple.quicktime.location.ISO6709`, four decimals as
    /// Apple writes it), from the first fix, unless the application gave one.
    private func setMovieLocation(from items: [TimedMetadataItem]) {
        let key = MetadataItem.QuickTimeKey.locationISO6709
        guard case .string(let text)? = items.first(where: { $0.key == .locationISO6709 })?.value,
              !writer.configuration.metadata.contains(where: { $0.key == key }),
              let position = GPXDocument.parseISO6709(text),
              let item = MetadataItem.location(latitude: position.latitude, longitude: position.longitude, altitude: position.altitude)
        else { return }
        writer.addMetadataItem(item)
    }

    /// Appends PCM `buffer` where the audio thread put it, after the silence that fills an
    /// overrun; the placement's time is from the segment's start.
    func appendAudio(_ buffer: AudioBuffer, _ placement: AudioTrackTimeline.Placement, bytesPerFrame: Int) throws {
        guard let audioTrack else { return }
        if placement.silenceFrames > 0 {
            let silence = [UInt8](repeating: 0, count: placement.silenceFrames * bytesPerFrame)
            try writer.appendAudioFrames(silence, to: audioTrack, startTime: placement.startTime - Int64(placement.silenceFrames))
        }
        if !placement.frames.isEmpty {
            try buffer.bytes.withUnsafeBytes { raw in
                let bytes = (placement.frames.lowerBound * bytesPerFrame)..<(placement.frames.upperBound * bytesPerFrame)
                try writer.appendAudioFrames(UnsafeRawBufferPointer(rebasing: raw[bytes]), to: audioTrack, startTime: placement.startTime)
            }
            audioEnd = placement.startTime + Int64(placement.frames.count)
        } else if placement.silenceFrames > 0 {
            audioEnd = placement.startTime
        }
    }

    /// Appends AAC access units; `startTime` is where the first input frame sits from the
    /// segment's start, `end` where the audio fed so far ends.
    func appendAudio(packets: [[UInt8]], startTime: Int64, end: Int64) throws {
        guard let audioTrack else { return }
        for packet in packets { try writer.appendAudioPacket(packet, to: audioTrack, startTime: startTime) }
        audioEnd = end
    }

    /// Ends both tracks (the audio where the video ends, or sooner when it ended sooner),
    /// finishes the movie and flushes the file.
    func finish(audioRate: Int64, timescale: UInt32) throws {
        let started = MonotonicClock.now()
        defer { finalizationDuration = .nanoseconds(Int64(MonotonicClock.now() - started)) }
        let videoSpan = videoEnd ?? 0
        var endTimes = [videoTrack: (firstDecodeTime ?? 0) + videoSpan]
        if let audioTrack {
            endTimes[audioTrack] = min(audioLimit ?? videoSpan * audioRate / Int64(timescale), audioEnd ?? .max)
        }
        _ = try writer.finish(endTimes: endTimes)
        try file.synchronize()
    }

    /// Closes the file and reads back the movie it holds, after repairing a fragmented movie
    /// a failed write left unfinished; a movie without a single frame is removed.
    /// - Returns: the movie (nil when removed or unreadable), the file's size, and whether it
    ///   had no frame.
    func closeAndReadBack(failed: Bool, fragmented: Bool) -> (info: MovieInfo?, finalSize: UInt64, noFrames: Bool) {
        if failed, fragmented {
            // A write failed (a full disk, an I/O error): everything up to the last whole
            // fragment is on disk. Finish it as an ordinary movie if there is room for the
            // movie atom (cutting the partial fragment frees some); otherwise it stays a
            // fragmented movie, which players open as it is.
            _ = try? MovieRepair.repair(file)
        }
        let finalSize = file.size
        try? file.close()
        var info = try? MovieInfo(source: RandomAccessFile(path: path, mode: .read))
        // A movie left fragmented (no room to finish it) plays through its fragments.
        let playableFragments = info?.isFragmented == true && info!.tree.atoms.contains { $0.type == "moof" }
        let noFrames = (info?.videoTrack?.sampleCount ?? 0) == 0 && !playableFragments
        if noFrames {
            // A movie without a single frame is not a recording: leave nothing that looks like one.
            try? RandomAccessFile.remove(path)
            info = nil
        }
        return (info, finalSize, noFrames)
    }
}
