import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// `StreamMuxer.mux(videoFile:…)` writes while a second thread reads the stream. These tests hold
/// it to the movie the whole-stream muxer writes, to ffmpeg's own display order, and to the
/// fallbacks for streams whose display order cannot be told while reading.
@Suite struct StreamingMuxTests {
    static let audioPath = fixture("tone-48k-stereo.wav")

    func options(fragmentInterval: Duration? = nil) -> StreamMuxer.Options {
        var options = StreamMuxer.Options()
        options.creationTime = goldenCreationTime
        options.fragmentInterval = fragmentInterval
        return options
    }

    /// The movie the whole-stream path writes for the stream in `path`.
    func wholeStreamMovie(_ path: String, audio: Bool, options: StreamMuxer.Options) throws -> [UInt8] {
        let sink = InMemoryMovieSink()
        let wav = try audio ? (wav: WAVFile(path: Self.audioPath), path: Self.audioPath) : nil
        _ = try StreamMuxer.mux(video: AnnexBStream(annexB: RandomAccessFile.readAll(path)), audio: wav, into: sink, options: options)
        return sink.bytes
    }

    /// ffprobe's packets of the video track: presentation time, size and key flag, in decode order.
    func videoPackets(_ path: String) throws -> [String] {
        let result = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,size,flags",
                                         "-of", "csv=p=0", path])
        #expect(result.status == 0, "ffprobe: \(result.error)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// For each picture in decode order, its display position as ffmpeg's decoder puts it
    /// (`coded_picture_number`, which FFmpeg 5.1 — Debian 12's — still prints; FFmpeg 7 dropped it).
    func ffmpegDisplayPositions(_ streamPath: String) throws -> [Int] {
        let result = try run("ffprobe", ["-v", "error", "-show_entries", "frame=coded_picture_number", "-of", "csv=p=0", streamPath])
        #expect(result.status == 0, "ffprobe: \(result.error)")
        let decodeIndices = result.output.split(separator: "\n").compactMap { Int($0.filter(\.isNumber)) }
        var positions = [Int](repeating: -1, count: decodeIndices.count)
        for (display, decode) in decodeIndices.enumerated() where decode < positions.count { positions[decode] = display }
        return positions
    }

    @Test("written while read: the movie of the whole-stream muxer, pictures where ffmpeg shows them",
          arguments: ["testsrc-ipp.264", "testsrc-bframes.264", "testsrc-bframes-long.264", "testsrc-hrd.264"],
          [(nil, 1 << 20), (Duration.milliseconds(300), 1 << 20), (nil, 7), (Duration.milliseconds(300), 61)])
    func streamedMovieMatches(_ name: String, layout: (fragmentInterval: Duration?, segmentSize: Int)) throws {
        try checkStreamedMovie(fixture(name), fragmentInterval: layout.fragmentInterval, segmentSize: layout.segmentSize)
    }

    @Test("1,200 frames read 512 bytes at a time: pictures cross every boundary and the waiting list is compacted")
    func longStreamInSmallSegments() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // Eight copies of a stream that starts with its parameter sets and an IDR picture are one
        // valid stream of eight IDR periods.
        let one = try RandomAccessFile.readAll(fixture("testsrc-bframes-long.264"))
        let path = dir.file("long.264")
        try Data(Array([[UInt8]](repeating: one, count: 8).joined())).write(to: URL(fileURLWithPath: path))
        try checkStreamedMovie(path, fragmentInterval: nil, segmentSize: 512)
        try checkStreamedMovie(path, fragmentInterval: .seconds(1), segmentSize: 4096)
    }

    func checkStreamedMovie(_ path: String, fragmentInterval: Duration?, segmentSize: Int) throws {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = dir.file("out.mov"), reference = dir.file("reference.mov")
        let options = options(fragmentInterval: fragmentInterval)
        let result = try StreamMuxer.mux(videoFile: path, audio: (WAVFile(path: Self.audioPath), Self.audioPath),
                                         to: out, options: options, segmentSize: segmentSize)
        #expect(result.wasStreamed, "\(name): the SPS states its reorder bound")
        let stream = try AnnexBStream(contentsOfFile: path)
        #expect(result.videoFrameCount == stream.accessUnits.count)
        let bound = Int(try #require(stream.configuration.avc!.sps.maxNumReorderFrames))
        let whole = try wholeStreamMovie(path, audio: true, options: options)
        if stream.reorderDepth == bound {
            #expect(try RandomAccessFile.readAll(out) == whole, "\(name): byte for byte")
        }
        // Otherwise the decode times start `bound` frames early instead of `reorderDepth`: the
        // samples, their display times and key flags are the same.
        try Data(whole).write(to: URL(fileURLWithPath: reference))
        #expect(try videoPackets(out) == (try videoPackets(reference)))
        let ticks = Int(options.frameRate.frameDuration)
        let shown = try videoPackets(out).map { Int($0.split(separator: ",")[0])! / ticks }
        #expect(shown == (try ffmpegDisplayPositions(path)), "\(name): display order as ffmpeg decodes the stream")
        let probed = try ffprobeStreams(out)
        #expect(probed.first { $0.codec_type == "video" }?.start_time == "0.000000")
        #expect(probed.first { $0.codec_type == "video" }?.nb_frames == "\(stream.accessUnits.count)")
    }

    @Test("a non-reference picture across the picture order count wrap does not shift the pictures after it")
    func pictureOrderCountWrap() throws {
        // testsrc-bframes-long.264 wraps pic_order_cnt_lsb (6 bits) every 32 frames, with a
        // non-reference B picture decoded right after the reference one at the wrap; the
        // parser once carried that picture's order count forward, misplacing 148 of 150 frames.
        let stream = try AnnexBStream(contentsOfFile: fixture("testsrc-bframes-long.264"))
        #expect(stream.accessUnits.map(\.presentationIndex) == (try ffmpegDisplayPositions(fixture("testsrc-bframes-long.264"))))
    }

    /// The fixture with its SPS's VUI rewritten from the bit `field` starts at (as ffmpeg's
    /// trace_headers reports it) by `bits`; the rest of the SPS after the rewritten part is dropped
    /// and closed with the RBSP stop bit.
    func editedStream(_ name: String, from field: String, bits replacement: (_ trace: [String: (position: Int, value: Int)]) -> [Int]) throws -> [UInt8] {
        let trace = try run("ffmpeg", ["-v", "trace", "-i", fixture(name), "-frames:v", "1", "-c", "copy",
                                       "-bsf:v", "trace_headers", "-f", "null", "-"])
        var fields: [String: (position: Int, value: Int)] = [:]
        for line in trace.error.split(separator: "\n") where line.contains("[trace_headers") {
            let words = line.split(separator: "]", maxSplits: 1).last!.split(separator: " ")
            guard words.count >= 4, let position = Int(words[0]), let value = Int(words.last!), fields[String(words[1])] == nil else { continue }
            fields[String(words[1])] = (position, value)
        }
        #expect(fields["profile_idc"]?.position == 8, "positions count from the NAL header")
        let start = try #require(fields[field], "ffmpeg's trace shows \(field)").position

        let bytes = try RandomAccessFile.readAll(fixture(name))
        let units = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
        let sps = try #require(units.first { bytes[$0.lowerBound] & 0x1F == 7 })
        // ffmpeg counts bits of the unescaped payload: emulation-prevention bytes out, then back in.
        var rbsp: [UInt8] = []
        for byte in bytes[sps] {
            if byte == 3, rbsp.count >= 2, rbsp[rbsp.count - 1] == 0, rbsp[rbsp.count - 2] == 0 { continue }
            rbsp.append(byte)
        }
        let originalBits: [Int] = rbsp.flatMap { byte in (0..<8).map { Int(byte >> (7 - $0) & 1) } }
        var bits: [Int] = Array(originalBits.prefix(start))
        bits += replacement(fields)
        bits.append(1)
        bits += [Int](repeating: 0, count: (8 - bits.count % 8) % 8)
        var edited: [UInt8] = []
        for i in stride(from: 0, to: bits.count, by: 8) {
            let byte = bits[i..<i + 8].reduce(UInt8(0)) { $0 << 1 | UInt8($1) }
            if byte <= 3, edited.count >= 2, edited[edited.count - 1] == 0, edited[edited.count - 2] == 0 { edited.append(3) }
            edited.append(byte)
        }
        return Array(bytes[..<sps.lowerBound]) + edited + Array(bytes[sps.upperBound...])
    }

    /// ue(v) bits.
    func ue(_ value: Int) -> [Int] {
        let code = value + 1
        let length = Int.bitWidth - code.leadingZeroBitCount
        return [Int](repeating: 0, count: length - 1) + (0..<length).map { code >> (length - 1 - $0) & 1 }
    }

    @Test("a stream that states no reorder bound, or one it breaks, is read whole first: the same movie as the whole-stream muxer")
    func fallsBackToReadingWhole() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // testsrc-bframes.264 holds one picture back (reorder depth 1).
        let noBound = try editedStream("testsrc-bframes.264", from: "bitstream_restriction_flag") { _ in [0] }
        let broken = try editedStream("testsrc-bframes.264", from: "max_num_reorder_frames") { fields in
            ue(0) + ue(fields["max_dec_frame_buffering"]!.value)
        }
        for (label, bytes, bound) in [("no bound", noBound, nil as UInt32?), ("bound 0", broken, 0)] {
            let input = dir.file("\(label).264"), out = dir.file("\(label).mov")
            try Data(bytes).write(to: URL(fileURLWithPath: input))
            let stream = try AnnexBStream(annexB: bytes)
            #expect(stream.configuration.avc!.sps.maxNumReorderFrames == bound, "\(label)")
            #expect(stream.accessUnits.count == 30)
            let result = try StreamMuxer.mux(videoFile: input, audio: (WAVFile(path: Self.audioPath), Self.audioPath), to: out,
                                             options: options())
            #expect(!result.wasStreamed, "\(label)")
            #expect(result.videoFrameCount == 30)
            #expect(try RandomAccessFile.readAll(out) == (try wholeStreamMovie(input, audio: true, options: options())), "\(label)")
        }
    }

    @Test("a slice that does not parse halfway through: a typed error, and no partial movie left")
    func corruptSliceMidStream() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        var bytes = try RandomAccessFile.readAll(fixture("testsrc-bframes-long.264"))
        let units = bytes.withUnsafeBytes { AnnexBStream.nalUnitRanges(in: $0) }
        let slices = units.filter { [1, 5].contains(bytes[$0.lowerBound] & 0x1F) }
        let victim = slices[slices.count * 2 / 3]
        // Escaped zeros: the header's first Exp-Golomb code runs past 32 bits.
        let garbage = [UInt8]((0..<(victim.count - 1) / 3).flatMap { _ in [0, 0, 3] as [UInt8] })
        bytes.replaceSubrange(victim.lowerBound + 1..<victim.lowerBound + 1 + garbage.count, with: garbage)
        let input = dir.file("corrupt.264"), out = dir.file("out.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        #expect(throws: MovieFormatError.self) { try AnnexBStream(annexB: bytes) }
        // Read 64 bytes at a time, so pictures before the bad one are already written.
        #expect(throws: MovieFormatError.self) {
            try StreamMuxer.mux(videoFile: input, audio: nil, to: out, options: options(), segmentSize: 64)
        }
        #expect(!RandomAccessFile.exists(out), "the partial movie is removed")
    }

    @Test("with a WAV ten times longer than the video, the audio is cut to the video and the spare reservation given back")
    func longerAudioIsCutAndItsReservationGivenBack() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // 10 s of audio for 1 s of video: the streamed mux reserves the whole WAV (it cannot
        // know the frame count before reading the stream), about 1.7 MB more than it writes.
        let wavPath = dir.file("long.wav")
        let made = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "10",
                                      "-ac", "2", "-c:a", "pcm_s16le", wavPath])
        #expect(made.status == 0, "ffmpeg: \(made.error)")
        for interval in [nil, Duration.milliseconds(300)] {
            let path = dir.file("out-\(interval == nil ? "plain" : "fragmented").mov")
            let result = try StreamMuxer.mux(videoFile: fixture("testsrc-bframes.264"), audio: (WAVFile(path: wavPath), wavPath),
                                             to: path, options: options(fragmentInterval: interval))
            #expect(result.wasStreamed)
            var info = stat()
            #expect(stat(path, &info) == 0)
            let allocated = Int(info.st_blocks) * 512
            let limit = (Int(info.st_size) + 4095) / 4096 * 4096 + 65536
            #expect(allocated <= limit, "no blocks left reserved past the end (\(allocated) bytes for \(info.st_size))")
            let audio = try #require(try ffprobeStreams(path).first { $0.codec_type == "audio" })
            #expect(audio.duration == "1.000000", "the audio is cut to the video's second")
        }
    }

    @Test("audio frames per video frame, exactly, at NTSC rates and past any overflow")
    func audioSplitIsExact() throws {
        let wav = try WAVFile(path: Self.audioPath)  // 48 kHz, 48,000 frames
        let ntsc = FrameRate(frames: 30000, seconds: 1001)
        // 1,601.6 audio frames per video frame: rounded down, never drifting.
        #expect(StreamMuxer.audioFrames(afterVideoFrames: 1, rate: ntsc, wav: wav) == 1601)
        #expect(StreamMuxer.audioFrames(afterVideoFrames: 5, rate: ntsc, wav: wav) == 8008)
        #expect(StreamMuxer.audioFrames(afterVideoFrames: 29, rate: ntsc, wav: wav) == 46446)
        #expect(StreamMuxer.audioFrames(afterVideoFrames: 30, rate: ntsc, wav: wav) == 48000, "no more than the file has")
        #expect(StreamMuxer.audioFrames(afterVideoFrames: 0, rate: ntsc, wav: wav) == 0)
        #expect(StreamMuxer.audioFrames(afterVideoFrames: Int.max, rate: FrameRate(frames: 1, seconds: .max), wav: wav) == 48000)
    }

    @Test("an output that is the video or audio input (or a link to it) is refused, even with overwrite, and both stay intact")
    func outputThatIsAnInputIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let video = dir.file("in.264"), audio = dir.file("in.wav"), link = dir.file("link.mov")
        try FileManager.default.copyItem(atPath: fixture("testsrc-bframes.264"), toPath: video)
        try FileManager.default.copyItem(atPath: Self.audioPath, toPath: audio)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: audio)
        var options = options()
        options.overwrite = true
        for output in [video, audio, link] {
            #expect(throws: FileError.self) {
                try StreamMuxer.mux(videoFile: video, audio: (WAVFile(path: audio), audio), to: output, options: options)
            }
        }
        #expect(try RandomAccessFile.readAll(video) == (try RandomAccessFile.readAll(fixture("testsrc-bframes.264"))))
        #expect(try RandomAccessFile.readAll(audio) == (try RandomAccessFile.readAll(Self.audioPath)))
    }
}
