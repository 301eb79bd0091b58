import Foundation
import Testing
@testable import MovieContainer
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

    /// For each picture in decode order, its display position as ffmpeg's decoder puts it.
    func ffmpegDisplayPositions(_ streamPath: String) throws -> [Int] {
        let result = try run("ffprobe", ["-v", "error", "-show_entries", "frame=coded_picture_number", "-of", "csv=p=0", streamPath])
        #expect(result.status == 0, "ffprobe: \(result.error)")
        let decodeIndices = result.output.split(separator: "\n").compactMap { Int($0.filter(\.isNumber)) }
        var positions = [Int](repeating: -1, count: decodeIndices.count)
        for (display, decode) in decodeIndices.enumerated() where decode < positions.count { positions[decode] = display }
        return positions
    }

    @Test("written while read: the movie of the whole-stream muxer, pictures where ffmpeg shows them",
          arguments: ["testsrc-ipp.264", "testsrc-bframes.264", "testsrc-bframes-long.264"], [nil, Duration.milliseconds(300)])
    func streamedMovieMatches(_ name: String, fragmentInterval: Duration?) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = dir.file("out.mov"), reference = dir.file("reference.mov")
        let options = options(fragmentInterval: fragmentInterval)
        let result = try StreamMuxer.mux(videoFile: fixture(name), audio: (WAVFile(path: Self.audioPath), Self.audioPath),
                                         to: out, options: options)
        #expect(result.wasStreamed, "the SPS states its reorder bound")
        let stream = try AnnexBStream(contentsOfFile: fixture(name))
        #expect(result.videoFrameCount == stream.accessUnits.count)
        let bound = Int(try #require(stream.configuration.sps.maxNumReorderFrames))
        let whole = try wholeStreamMovie(fixture(name), audio: true, options: options)
        if stream.reorderDepth == bound {
            #expect(try RandomAccessFile.readAll(out) == whole, "byte for byte")
        }
        // Otherwise the decode times start `bound` frames early instead of `reorderDepth`: the
        // samples, their display times and key flags are the same.
        try Data(whole).write(to: URL(fileURLWithPath: reference))
        #expect(try videoPackets(out) == (try videoPackets(reference)))
        let ticks = Int(options.frameRate.frameDuration)
        let shown = try videoPackets(out).map { Int($0.split(separator: ",")[0])! / ticks }
        #expect(shown == (try ffmpegDisplayPositions(fixture(name))), "display order as ffmpeg decodes the stream")
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
            #expect(stream.configuration.sps.maxNumReorderFrames == bound, "\(label)")
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
        #expect(throws: MovieFormatError.self) { try StreamMuxer.mux(videoFile: input, audio: nil, to: out, options: options()) }
        #expect(!RandomAccessFile.exists(out), "the partial movie is removed")
    }

    @Test("the streamed mux reserves about the input's size and gives back what it did not use")
    func reservationIsGivenBack() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        for interval in [nil, Duration.milliseconds(300)] {
            let path = dir.file("out-\(interval == nil ? "plain" : "fragmented").mov")
            try StreamMuxer.mux(videoFile: fixture("testsrc-bframes-long.264"), audio: (WAVFile(path: Self.audioPath), Self.audioPath),
                                to: path, options: options(fragmentInterval: interval))
            var info = stat()
            #expect(stat(path, &info) == 0)
            let allocated = Int(info.st_blocks) * 512
            let limit = (Int(info.st_size) + 4095) / 4096 * 4096 + 65536
            #expect(allocated <= limit, "no blocks left reserved past the end")
        }
    }
}
