/// A frame rate as a ratio, such as 30/1 or 30000/1001.
public struct FrameRate: Hashable, Sendable, CustomStringConvertible {
    public var frames: UInt32
    public var seconds: UInt32

    /// Creates a rate of `frames` per `seconds`.
    public init(frames: UInt32, seconds: UInt32 = 1) {
        self.frames = frames
        self.seconds = seconds
    }

    /// A video time scale in which every frame lasts a whole number of ticks: 600 (Apple's)
    /// where it divides evenly, otherwise the rate's own numerator.
    public var timescale: UInt32 {
        (600 * UInt64(seconds)) % UInt64(frames) == 0 ? 600 : frames
    }

    /// One frame's duration in ``timescale`` ticks.
    public var frameDuration: UInt32 { UInt32(UInt64(timescale) * UInt64(seconds) / UInt64(frames)) }

    public var description: String { seconds == 1 ? "\(frames) fps" : "\(frames)/\(seconds) fps" }
}

/// Writes already-encoded streams — a raw H.264 (Annex-B) file and a PCM WAV file — into a
/// QuickTime movie through ``MovieWriter``, without re-encoding.
public struct StreamMuxer {
    /// What to mux.
    public struct Options: Sendable {
        public var frameRate = FrameRate(frames: 30)
        public var orientation = VideoOrientation.up
        /// Creation time written into the headers; `nil` for now.
        public var creationTime: QuickTimeTimestamp?
        /// Overwrite an existing output file instead of refusing.
        public var overwrite = false
        /// Movie metadata, written as `moov/meta`; see ``MovieWriter/Configuration/metadata``.
        public var metadata: [MetadataItem] = []
        /// How often a movie fragment is written, or `nil` (the default) to write the classic
        /// layout directly. With fragments the file is written as a recording is and finished
        /// into an ordinary movie; see ``MovieWriter/Configuration/fragmentInterval``.
        public var fragmentInterval: Duration?
        /// A Boolean value that indicates whether the movie is forced to the disk (`fdatasync`)
        /// before ``StreamMuxer/mux(video:audio:to:options:)`` returns, and with fragments after
        /// each one. Off by default: like `cp`, a remux of files that still exist leaves the
        /// write-back to the kernel.
        public var synchronizesToDisk = false

        public init() {}
    }

    /// Writes `video` (and optionally `audio`) to a new movie at `outputPath`.
    ///
    /// The audio track is cut or left as is so both tracks start at 0; video timing comes from
    /// the frame rate and the stream's picture order.
    /// - Returns: the writer's summary.
    /// - Throws: ``FileError``, ``MovieFormatError``, ``MovieWriterError`` or
    ///   ``WAVFile/FormatError``; a failed write removes the partial output.
    @discardableResult
    public static func mux(video: AnnexBStream, audio: (wav: WAVFile, path: String)?, to outputPath: String,
                           options: Options) throws -> MovieWriter.Summary {
        let output = try RandomAccessFile(path: outputPath, mode: options.overwrite ? .createOrTruncate : .createNew)
        do {
            // The media, which the movie holds at least, goes into blocks reserved at once.
            let videoBytes = video.accessUnits.reduce(UInt64(0)) { $0 + UInt64($1.lengthPrefixedCount) }
            let audioBytes = audio.map { audioFrameCount(video: video, wav: $0.wav, rate: options.frameRate) * UInt64($0.wav.format.bytesPerFrame) }
            try output.reserve(videoBytes + (audioBytes ?? 0))
            let summary = try mux(video: video, audio: audio, into: output, options: options)
            if options.synchronizesToDisk { try output.synchronize() }
            try output.close()
            return summary
        } catch {
            try? output.close()
            try? RandomAccessFile.remove(outputPath)
            throw error
        }
    }

    static func mux(video: AnnexBStream, audio: (wav: WAVFile, path: String)?, into sink: any MovieByteSink,
                    options: Options) throws -> MovieWriter.Summary {
        let now = QuickTimeTimestamp(unixSeconds: Int64(SystemClock.unixSeconds()))
        var configuration = MovieWriter.Configuration(creationTime: options.creationTime ?? now, metadata: options.metadata)
        configuration.fragmentInterval = options.fragmentInterval
        configuration.coalescesMediaWrites = true
        if options.synchronizesToDisk { configuration.durability = .syncEachFragment }
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let rate = options.frameRate
        let videoTrack = try writer.addVideoTrack(VideoTrackFormat(
            h264: video.configuration, timescale: rate.timescale, orientation: options.orientation,
            nominalFrameDuration: rate.frameDuration))
        var audioTrack: TrackID?
        var audioBytes = ImmutableBytes([])
        if let audio {
            audioTrack = try writer.addAudioTrack(AudioTrackFormat(pcm: audio.wav.format))
            let file = try RandomAccessFile(path: audio.path, mode: .read)
            defer { try? file.close() }
            audioBytes = try file.mappedContents()
        }

        let frameTicks = Int64(rate.frameDuration)
        let delay = Int64(video.reorderDepth)
        let videoFrames = video.accessUnits.count
        // Audio no longer than the video, fed in step with it so chunks interleave.
        let bytesPerFrame = UInt64(audio?.wav.format.bytesPerFrame ?? 1)
        let audioFrames = audio.map { audioFrameCount(video: video, wav: $0.wav, rate: rate) } ?? 0
        if let audio, UInt64(audioBytes.count) < audio.wav.dataOffset + audioFrames * bytesPerFrame {
            throw WAVFile.FormatError(path: audio.path, reason: "it became shorter than its header says while it was being read")
        }
        var audioDone: UInt64 = 0
        // Samples go to the writer as the inputs' own memory, which stays mapped until the
        // movie is finished; the writer hands it to the file system in gathered writes.
        return try video.bytes.withUnsafeBytes { videoBytes in
            try audioBytes.withUnsafeBytes { audioBytes in
                for (index, unit) in video.accessUnits.enumerated() {
                    let decodeTime = (Int64(index) - delay) * frameTicks
                    let presentationTime = Int64(unit.presentationIndex) * frameTicks
                    try writer.appendVideoSample(borrowingNALUnits: unit.nalUnitRanges, of: videoBytes, to: videoTrack,
                                                 decodeTime: decodeTime, presentationTime: presentationTime, isSync: unit.isSync)
                    if let audio, let audioTrack {
                        let due = min(audioFrames, UInt64(Double(index + 1) / Double(videoFrames) * Double(audioFrames)))
                        if due > audioDone {
                            let from = Int(audio.wav.dataOffset + audioDone * bytesPerFrame)
                            let to = Int(audio.wav.dataOffset + due * bytesPerFrame)
                            try writer.appendAudioFrames(borrowing: UnsafeRawBufferPointer(rebasing: audioBytes[from..<to]), to: audioTrack)
                            audioDone = due
                        }
                    }
                }
                return try writer.finish(endTimes: [videoTrack: Int64(videoFrames) * frameTicks - delay * frameTicks])
            }
        }
    }
}

extension StreamMuxer {
    /// How many frames of `wav` go into the movie: no more than last as long as the video.
    static func audioFrameCount(video: AnnexBStream, wav: WAVFile, rate: FrameRate) -> UInt64 {
        let videoSeconds = Double(video.accessUnits.count) * Double(rate.seconds) / Double(rate.frames)
        return min(wav.frameCount, UInt64(videoSeconds * Double(wav.format.sampleRate)))
    }
}

extension AnnexBStream {
    /// Parses the Annex-B stream in the file at `path`, mapped rather than read; see
    /// ``RandomAccessFile/mappedContents()``.
    /// - Throws: ``FileError`` when the file cannot be read, ``MovieFormatError`` when it is not
    ///   an H.264 stream.
    public init(contentsOfFile path: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        try self.init(annexB: file.mappedContents())
    }
}
