import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif

/// Writes already-encoded streams — a raw H.264 or HEVC (Annex-B) file and a PCM WAV file — into
/// a QuickTime movie through `MovieWriter`, without re-encoding the video (the audio stays PCM,
/// or is encoded to AAC with ``Options/audioEncoding``). HEVC becomes an 'hvc1' track: its
/// parameter sets go into `hvcC` and never into the samples.
///
/// ``mux(videoFile:audio:to:options:)`` writes the movie while the stream is still being read:
/// a second thread finds the NAL units and pictures a megabyte at a time, and the pictures get
/// their display positions from the reorder bound the stream's SPS states, so reading and
/// writing overlap. A stream that states no bound (or breaks it) is read whole first, as
/// `mux(video:audio:to:options:)` does for an `AnnexBStream` already in memory; the movies
/// differ only in how early decode times start (see ``mux(videoFile:audio:to:options:)``).
public struct StreamMuxer {
    /// The least collected media written while the writer waits for the reading thread: one
    /// write call's worth, so waiting does not turn into many small writes.
    static let idleWriteMinimum = 512 << 10

    /// What to mux.
    public struct Options: Sendable {
        /// The video frame rate, which sets every frame's duration; 30 fps by default.
        public var frameRate = FrameRate(frames: 30)
        /// The orientation written into the video track's matrix; upright by default.
        public var orientation = VideoOrientation.up
        /// Creation time written into the headers; `nil` for now.
        public var creationTime: QuickTimeTimestamp?
        /// Overwrite an existing output file instead of refusing.
        public var overwrite = false
        /// How the audio is stored: as the WAV's PCM (the default, nothing re-encoded), or
        /// encoded to AAC on a thread of its own, with the encoder's delay in the edit list.
        public var audioEncoding = AudioEncoderSettings.lpcm
        /// Movie metadata, written as `moov/meta`; see `MovieWriter.Configuration.metadata`.
        public var metadata: [MetadataItem] = []
        /// How often a movie fragment is written, or `nil` (the default) to write the classic
        /// layout directly. With fragments the file is written as a recording is and finished
        /// into an ordinary movie; see `MovieWriter.Configuration.fragmentInterval`.
        public var fragmentInterval: Duration?
        /// A Boolean value that indicates whether the movie is forced to the disk (`fdatasync`)
        /// before a mux returns, and with fragments after
        /// each one. Off by default: like `cp`, a remux of files that still exist leaves the
        /// write-back to the kernel.
        public var synchronizesToDisk = false

        /// Creates options with the defaults.
        public init() {}
    }

    /// What ``mux(videoFile:audio:to:options:)`` wrote.
    public struct Result: Sendable {
        /// The writer's summary.
        public var summary: MovieWriter.Summary
        /// The number of video frames in the movie.
        public var videoFrameCount: Int
        /// A Boolean value that indicates whether the movie was written while the stream was
        /// read; `false` when the stream had to be read whole first (it states no reorder
        /// bound, breaks the one it states, or puts a picture before its parameter sets).
        public var wasStreamed: Bool
    }

    /// Writes `video` (and optionally `audio`) to a new movie at `outputPath`.
    ///
    /// The audio track is cut or left as is so both tracks start at 0; video timing comes from
    /// the frame rate and the stream's picture order.
    /// - Returns: the writer's summary.
    /// - Throws: `FileError`, `MovieFormatError`, `MovieWriterError` or
    ///   `WAVFile.FormatError`; a failed write removes the partial output.
    @discardableResult
    package static func mux(video: AnnexBStream, audio: (wav: WAVFile, path: String)?, to outputPath: String,
                           options: Options) throws -> MovieWriter.Summary {
        let videoBytes = video.accessUnits.reduce(UInt64(0)) { $0 + UInt64($1.lengthPrefixedCount) }
        return try writing(to: outputPath, reserving: videoBytes, audio: audio?.wav, videoFrames: video.accessUnits.count,
                           options: options) { output in
            try mux(video: video, audio: audio, into: output, options: options)
        }
    }

    static func mux(video: AnnexBStream, audio: (wav: WAVFile, path: String)?, into sink: any MovieByteSink,
                    options: Options) throws -> MovieWriter.Summary {
        let audioBytes = try audio.map { try mapped($0.path, readAhead: true) } ?? ImmutableBytes([])
        var session = try MuxSession(configuration: video.configuration, audio: audio, audioBytes: audioBytes, sink: sink,
                                     options: options, delay: video.reorderDepth)
        defer { session.cancel() }  // the AAC encoder's thread, if anything failed
        // Samples go to the writer as the inputs' own memory, which stays mapped until the
        // movie is finished; the writer hands it to the file system in gathered writes.
        return try video.bytes.withUnsafeBytes { videoBytes in
            try audioBytes.withUnsafeBytes { audioBytes in
                for unit in video.accessUnits {
                    try session.append(unit.nalUnitRanges, of: videoBytes, presentationIndex: unit.presentationIndex,
                                       isSync: unit.isSync, audio: audioBytes)
                }
                return try session.finish()
            }
        }
    }

    /// Writes the raw H.264 or HEVC file at `videoPath` (and optionally `audio`) to a new movie at
    /// `outputPath`, writing while the stream is read.
    ///
    /// The movie is the one `mux(video:audio:to:options:)` writes from the parsed stream, with
    /// one difference: the decoder delay (how far decode times start before 0) is the reorder
    /// bound the SPS states, which can be larger than the stream needs.
    /// - Throws: `FileError`, `MovieFormatError`, `MovieWriterError` or
    ///   `WAVFile.FormatError`; a failed write removes the partial output. An output that is
    ///   one of the inputs (the same file, or a link to it) is refused before anything is
    ///   written: the inputs are mapped, and writing over one would cut it short under the
    ///   mapping.
    @discardableResult
    public static func mux(videoFile videoPath: String, audio: (wav: WAVFile, path: String)?, to outputPath: String,
                           options: Options) throws -> Result {
        try mux(videoFile: videoPath, audio: audio, to: outputPath, options: options, segmentSize: StreamReader.defaultSegmentSize)
    }

    /// ``mux(videoFile:audio:to:options:)`` reading `segmentSize` bytes at a time (tests use
    /// small ones to cross segment boundaries everywhere).
    static func mux(videoFile videoPath: String, audio: (wav: WAVFile, path: String)?, to outputPath: String,
                    options: Options, segmentSize: Int) throws -> Result {
        for input in [videoPath] + (audio.map { [$0.path] } ?? []) where RandomAccessFile.isSameFile(input, outputPath) {
            throw FileError(path: outputPath, step: "writing the movie over its input \(input)", errno: EEXIST)
        }
        let bytes = try mapped(videoPath, readAhead: false)
        let audioBytes = try audio.map { try mapped($0.path, readAhead: false) } ?? ImmutableBytes([])
        let rate = options.frameRate
        let reader = StreamReader(bytes: bytes, audioBytes: audioBytes, audioEnd: { pictures in
            audio.map { Int($0.wav.offset(ofFrame: audioFrames(afterVideoFrames: pictures, rate: rate, wav: $0.wav))) } ?? 0
        }, segmentSize: segmentSize)
        defer { reader.stop() }
        guard let bound = try reader.configuration() else {
            return try readWholeFirst(bytes, audio: audio, to: outputPath, options: options)
        }
        do {
            var frames = 0
            // The Annex-B file is about the size of its samples (start codes become lengths;
            // parameter sets and delimiters leave), so its size is reserved and what is left over
            // given back at the end.
            let summary = try writing(to: outputPath, reserving: UInt64(bytes.count), audio: audio?.wav, videoFrames: nil,
                                      options: options) { output in
                var session = try MuxSession(configuration: bound.configuration, audio: audio, audioBytes: audioBytes,
                                             sink: output, options: options, delay: bound.reorderBound)
                defer { session.cancel() }  // the AAC encoder's thread, if anything failed
                let summary = try bytes.withUnsafeBytes { videoBytes in
                    try audioBytes.withUnsafeBytes { audioBytes in
                        // While the reading thread is behind, what is collected goes to the disk
                        // rather than waiting for a full batch: the first write used to wait for
                        // 4 MB of pictures to be read.
                        try reader.writePictures(bound.reorderBound, idle: {
                            try session.writer.writeCollectedMedia(ifAtLeast: StreamMuxer.idleWriteMinimum)
                        }) { units, presentationIndex, isSync in
                            try session.append(units, of: videoBytes, presentationIndex: presentationIndex, isSync: isSync,
                                               audio: audioBytes)
                        }
                        return try session.finish()
                    }
                }
                frames = session.videoFrameCount
                return summary
            }
            return Result(summary: summary, videoFrameCount: frames, wasStreamed: true)
        } catch is PresentationOrder.BoundExceeded {
            reader.stop()
            return try readWholeFirst(bytes, audio: audio, to: outputPath, options: options)
        }
    }

    private static func readWholeFirst(_ bytes: ImmutableBytes, audio: (wav: WAVFile, path: String)?, to outputPath: String,
                                       options: Options) throws -> Result {
        // Read whole on this thread: faulted in at once rather than page by page.
        bytes.withUnsafeBytes { prefaultMappedPages($0, 0..<$0.count) }
        let stream = try AnnexBStream(annexB: bytes)
        let summary = try mux(video: stream, audio: audio, to: outputPath, options: options)
        return Result(summary: summary, videoFrameCount: stream.accessUnits.count, wasStreamed: false)
    }

    /// Creates the output, reserves its media's blocks, runs `body` and closes it; removes it when
    /// anything fails.
    private static func writing(to outputPath: String, reserving videoBytes: UInt64, audio: WAVFile?, videoFrames: Int?,
                                options: Options, _ body: (RandomAccessFile) throws -> MovieWriter.Summary) throws -> MovieWriter.Summary {
        let output = try RandomAccessFile(path: outputPath, mode: options.overwrite ? .createOrTruncate : .createNew)
        do {
            // The media, which the movie holds at least, goes into blocks reserved at once.
            let audioBytes = audio.map { wav -> UInt64 in
                let frames = videoFrames.map { audioFrames(afterVideoFrames: $0, rate: options.frameRate, wav: wav) } ?? wav.frameCount
                guard options.audioEncoding.codec == .aac else { return frames * UInt64(wav.format.bytesPerFrame) }
                // A bit rate the encoder will refuse reserves nothing here; the encoder says why.
                let bitRate = UInt64(clamping: min(max(0, options.audioEncoding.aacBitRate(channelCount: Int(wav.format.channelCount))), 10_000_000))
                return frames * bitRate / (8 * UInt64(max(1, wav.format.sampleRate)))  // both bounded: no overflow
            } ?? 0
            var reserved = videoBytes + audioBytes
            do {
                try output.reserve(reserved)
            } catch let error as FileError where error.code == .noSpace && videoFrames == nil && audioBytes > 0 {
                // Without the frame count all of the WAV was asked for, which may be far more
                // than goes into the movie: only the video, then.
                reserved = videoBytes
                try output.reserve(reserved)
            }
            let summary = try body(output)
            // Blocks reserved past the end stay allocated until the file is cut to its size.
            if summary.fileSize < reserved { try output.truncate(to: summary.fileSize) }
            if options.synchronizesToDisk { try output.synchronize() }
            try output.close()
            return summary
        } catch {
            try? output.close()
            try? RandomAccessFile.remove(outputPath)
            throw error
        }
    }

    private static func mapped(_ path: String, readAhead: Bool) throws -> ImmutableBytes {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        return try file.mappedContents(readAhead: readAhead)
    }

    /// How many frames of `wav` go with the first `videoFrames` frames of video: all that end by
    /// the time the last of them ends, no more than the file has.
    static func audioFrames(afterVideoFrames videoFrames: Int, rate: FrameRate, wav: WAVFile) -> UInt64 {
        // videoFrames × seconds × sampleRate ÷ frames, exactly (rounded down).
        let (ticks, overflow) = UInt64(max(0, videoFrames)).multipliedReportingOverflow(by: UInt64(rate.seconds))
        let (high, low) = ticks.multipliedFullWidth(by: UInt64(wav.format.sampleRate))
        guard !overflow, high < UInt64(rate.frames) else { return wav.frameCount }
        return min(wav.frameCount, UInt64(rate.frames).dividingFullWidth((high, low)).quotient)
    }
}

/// One movie being muxed: the writer and its tracks, and the audio fed in step with the video so
/// chunks interleave by time.
private struct MuxSession {
    let writer: MovieWriter
    let videoTrack: TrackID
    let audioTrack: TrackID?
    let audio: (wav: WAVFile, path: String)?
    let rate: FrameRate
    let frameTicks: Int64
    let delay: Int64
    /// The audio frames the mapped file holds.
    let audioFramesPresent: UInt64
    /// With AAC: the thread encoding the WAV, and the access units taken from it so far.
    let aac: WAVEncodingThread?
    private var packetsDone: UInt64 = 0
    private(set) var videoFrameCount = 0
    private var audioDone: UInt64 = 0

    init(configuration video: VideoDecoderConfiguration, audio: (wav: WAVFile, path: String)?, audioBytes: ImmutableBytes,
         sink: any MovieByteSink, options: StreamMuxer.Options, delay: Int) throws {
        let now = QuickTimeTimestamp(unixSeconds: Int64(SystemClock.unixSeconds()))
        var configuration = MovieWriter.Configuration(creationTime: options.creationTime ?? now, metadata: options.metadata)
        configuration.fragmentInterval = options.fragmentInterval
        configuration.coalescesMediaWrites = true
        if options.synchronizesToDisk { configuration.durability = .syncEachFragment }
        let writer = MovieWriter(sink: sink, configuration: configuration)
        self.writer = writer
        rate = options.frameRate
        videoTrack = try writer.addVideoTrack(video.trackFormat(
            timescale: rate.timescale, orientation: options.orientation, nominalFrameDuration: options.frameRate.frameDuration))
        self.audio = audio
        frameTicks = Int64(rate.frameDuration)
        self.delay = Int64(delay)
        if let audio {
            let present = UInt64(audioBytes.count) > audio.wav.dataOffset ? UInt64(audioBytes.count) - audio.wav.dataOffset : 0
            audioFramesPresent = min(audio.wav.frameCount, present / UInt64(audio.wav.format.bytesPerFrame))
        } else {
            audioFramesPresent = 0
        }
        if let audio, options.audioEncoding.codec == .aac {
            let bitRate = options.audioEncoding.aacBitRate(channelCount: Int(audio.wav.format.channelCount))
            let aac = try WAVEncodingThread(wav: audio.wav, bytes: audioBytes, frames: audioFramesPresent, bitRate: bitRate)
            self.aac = aac
            do {
                audioTrack = try writer.addAudioTrack(AudioTrackFormat(aac: aac.format))
            } catch {
                aac.cancel()
                throw error
            }
        } else {
            aac = nil
            audioTrack = try audio.map { try writer.addAudioTrack(AudioTrackFormat(pcm: $0.wav.format)) }
        }
    }

    /// Appends the next picture in decode order, then the audio that ends by the time it ends.
    mutating func append(_ units: ArraySlice<Range<Int>>, of videoBytes: UnsafeRawBufferPointer, presentationIndex: Int,
                         isSync: Bool, audio audioBytes: UnsafeRawBufferPointer) throws {
        try writer.appendVideoSample(borrowingNALUnits: units, of: videoBytes, to: videoTrack,
                                     decodeTime: (Int64(videoFrameCount) - delay) * frameTicks,
                                     presentationTime: Int64(presentationIndex) * frameTicks, isSync: isSync)
        videoFrameCount += 1
        guard let audio, let audioTrack else { return }
        let due = StreamMuxer.audioFrames(afterVideoFrames: videoFrameCount, rate: rate, wav: audio.wav)
        guard due > audioDone else { return }
        guard due <= audioFramesPresent else {
            throw WAVFile.FormatError(path: audio.path, reason: "it became shorter than its header says while it was being read")
        }
        if aac != nil {
            try appendPackets(covering: due)
            audioDone = due
            return
        }
        let from = Int(audio.wav.offset(ofFrame: audioDone)), to = Int(audio.wav.offset(ofFrame: due))
        try writer.appendAudioFrames(borrowing: UnsafeRawBufferPointer(rebasing: audioBytes[from..<to]), to: audioTrack)
        audioDone = due
    }

    /// Appends AAC access units until their decoded frames, past the encoder's delay, cover
    /// the first `frames` frames of the WAV (or the encoder has no more).
    private mutating func appendPackets(covering frames: UInt64) throws {
        guard let aac, let audioTrack else { return }
        let needed = frames + UInt64(aac.format.primingFrames)
        while packetsDone * UInt64(AACFormat.framesPerPacket) < needed, let packet = try aac.next() {
            try writer.appendAudioPacket(packet, to: audioTrack)
            packetsDone += 1
        }
    }

    /// Finishes the movie: the video ends after its last frame, AAC audio with the WAV frames
    /// that go with it.
    mutating func finish() throws -> MovieWriter.Summary {
        var endTimes = [videoTrack: (Int64(videoFrameCount) - delay) * frameTicks]
        if let aac, let audioTrack {
            defer { aac.cancel() }
            try appendPackets(covering: audioDone)
            endTimes[audioTrack] = Int64(audioDone)
        }
        return try writer.finish(endTimes: endTimes)
    }

    /// Stops the AAC encoder's thread, after a failure.
    func cancel() { aac?.cancel() }
}

extension AnnexBStream {
    /// Parses the Annex-B stream in the file at `path`, mapped rather than read; see
    /// `RandomAccessFile.mappedContents()`.
    /// - Throws: `FileError` when the file cannot be read, `MovieFormatError` when it is not
    ///   an H.264 stream.
    public init(contentsOfFile path: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        try self.init(annexB: file.mappedContents())
    }
}
