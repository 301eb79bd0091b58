import Foundation
import Testing
import MovieCapture
import MovieContainer
import MovieEncoding
import MoviePlatform
import MovieRecorder

/// The conversion stage a camera's buffers go through (libyuv, TurboJPEG, libv4lconvert),
/// checked against ffmpeg's conversion of the same buffers, and the replay source that feeds
/// recorded buffers through it.
@Suite struct CameraFormatTests {
    static let width = 640, height = 480

    /// A raw camera format as V4L2 and ffmpeg name it.
    struct RawCase: CustomStringConvertible, Sendable {
        var format: V4L2PixelFormat
        var ffmpegName: String
        var description: String { format.description }
    }

    static let rawCases = [
        RawCase(format: .yuyv, ffmpegName: "yuyv422"), RawCase(format: .uyvy, ffmpegName: "uyvy422"),
        RawCase(format: .nv21, ffmpegName: "nv21"), RawCase(format: .rgb24, ffmpegName: "rgb24"),
        RawCase(format: .bgr24, ffmpegName: "bgr24"),
    ]

    /// Each raw format converted by libyuv matches ffmpeg's conversion of the same buffers to
    /// 4:2:0 at 45 dB or more in every plane (chroma sited as 4:2:0 defines it: both convert
    /// 4:2:2 by averaging row pairs).
    @Test(arguments: rawCases)
    func rawConversionMatchesFFmpeg(_ raw: RawCase) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let input = dir.file("in.raw"), reference = dir.file("ref.yuv")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=30", "-frames:v", "3",
                    "-pix_fmt", raw.ffmpegName, "-f", "rawvideo", input])
        try ffmpeg(["-f", "rawvideo", "-pix_fmt", raw.ffmpegName, "-s", "\(Self.width)x\(Self.height)", "-i", input,
                    "-pix_fmt", "yuv420p", "-f", "rawvideo", reference])
        let converter = try CameraPictureConverter(pixelFormat: raw.format, width: Self.width, height: Self.height, device: "test")
        #expect(!converter.usesFallback)
        let pictureSize = try #require(CameraPictureConverter.pictureSize(raw.format, width: Self.width, height: Self.height))
        let ours = try convertAll(try Array(Data(contentsOf: URL(fileURLWithPath: input))).chunks(of: pictureSize), converter)
        try expectPlanesMatch(ours, reference: reference, minimum: 45, "\(raw)")
    }

    /// A Motion-JPEG layout: how the JPEGs are made and whether they take the RGB detour.
    struct JPEGCase: CustomStringConvertible, Sendable {
        var name: String
        /// cjpeg's `-sample` factors, or an ffmpeg pixel format with `ffmpeg:`.
        var sampling: String
        var minimumPSNR: Double = 45
        var description: String { name }
    }

    static let jpegCases = [
        JPEGCase(name: "4:2:0", sampling: "ffmpeg:yuvj420p"),
        JPEGCase(name: "4:2:2 as ffmpeg writes it (2x2, 1x2)", sampling: "ffmpeg:yuvj422p"),
        JPEGCase(name: "4:2:2 as webcams send it (2x1, 1x1)", sampling: "2x1,1x1,1x1"),
        JPEGCase(name: "4:4:4", sampling: "1x1,1x1,1x1"),
        JPEGCase(name: "4:4:0", sampling: "1x2,1x1,1x1"),
        // 4:1:1 chroma is interpolated to twice its width, where libyuv's bilinear filter and
        // ffmpeg's area scaling (close to repeating samples) part at every colour edge.
        JPEGCase(name: "4:1:1", sampling: "4x1,1x1,1x1", minimumPSNR: 34),
        JPEGCase(name: "grey", sampling: "grey"),
    ]

    /// Every sampling layout a baseline JPEG may have decodes to the I420 picture ffmpeg makes of
    /// the same JPEG (full range kept, as ffmpeg's `yuvj420p`).
    @Test(arguments: jpegCases)
    func jpegDecodingMatchesFFmpeg(_ layout: JPEGCase) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let stream = dir.file("in.mjpeg"), reference = dir.file("ref.yuv")
        try makeMJPEG(stream, sampling: layout.sampling, frames: 2, in: dir)
        try ffmpeg(["-f", "mjpeg", "-i", stream, "-pix_fmt", "yuvj420p", "-f", "rawvideo", reference])
        let converter = try CameraPictureConverter(pixelFormat: .mjpeg, width: Self.width, height: Self.height, device: "test")
        let pictures = try jpegPictures(stream)
        #expect(pictures.count == 2)
        try expectPlanesMatch(try convertAll(pictures, converter), reference: reference, minimum: layout.minimumPSNR, layout.name)
    }

    /// A layout TurboJPEG cannot name (every component sampled 2×2, one scan each) goes through
    /// RGB and stays full range, close to ffmpeg's picture; libv4lconvert and libyuv's own MJPEG
    /// decoder refuse it.
    @Test func aJPEGWithUnnamedSamplingGoesThroughRGB() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let picture = dir.file("frame.ppm"), scans = dir.file("scans.txt"), jpeg = dir.file("in.mjpeg"), reference = dir.file("ref.yuv")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height)", "-frames:v", "1", picture])
        try "0;\n1;\n2;\n".write(toFile: scans, atomically: true, encoding: .utf8)
        let made = try run("cjpeg", ["-quality", "90", "-sample", "2x2,2x2,2x2", "-scans", scans, "-outfile", jpeg, picture])
        #expect(made.status == 0, "cjpeg: \(made.error)")
        try ffmpeg(["-f", "mjpeg", "-i", jpeg, "-pix_fmt", "yuvj420p", "-f", "rawvideo", reference])
        let converter = try CameraPictureConverter(pixelFormat: .mjpeg, width: Self.width, height: Self.height, device: "test")
        try expectPlanesMatch(try convertAll(try jpegPictures(jpeg), converter), reference: reference, minimum: 38, "2x2 ×3")
    }

    /// A Bayer stream goes to libv4lconvert, the fallback, with no device behind it; its picture
    /// is what demosaicking gives, recognisably the test pattern.
    @Test func bayerGoesToTheFallback() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let rgb = dir.file("in.rgb"), reference = dir.file("ref.yuv")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height)", "-frames:v", "1", "-pix_fmt", "rgb24",
                    "-f", "rawvideo", rgb])
        try ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(Self.width)x\(Self.height)", "-i", rgb, "-pix_fmt", "yuv420p",
                    "-f", "rawvideo", reference])
        let mosaic = bayerBGGR(Array(try Data(contentsOf: URL(fileURLWithPath: rgb))), width: Self.width, height: Self.height)
        let format = try #require(V4L2PixelFormat("BA81"))
        let converter = try CameraPictureConverter(pixelFormat: format, width: Self.width, height: Self.height, device: "test")
        #expect(converter.usesFallback)
        let ours = try convertAll([mosaic], converter)
        let luma = psnr(Array(ours.prefix(Self.width * Self.height)),
                        Array(try Data(contentsOf: URL(fileURLWithPath: reference)).prefix(Self.width * Self.height)))
        #expect(luma >= 20, "luma \(luma) dB")
    }

    /// A JPEG cut short, one without a start marker and one of another size are corrupt; the
    /// converter says so and never crashes.
    @Test func damagedJPEGsAreCorrupt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let stream = dir.file("in.mjpeg")
        try makeMJPEG(stream, sampling: "ffmpeg:yuvj422p", frames: 1, in: dir)
        let jpeg = try #require(try jpegPictures(stream).first)
        let converter = try CameraPictureConverter(pixelFormat: .mjpeg, width: Self.width, height: Self.height, device: "test")
        var picture = [UInt8](repeating: 0, count: PixelFormat.i420.byteCount(width: Self.width, height: Self.height))
        func outcome(_ bytes: [UInt8]) -> ConversionOutcome {
            picture.withUnsafeMutableBytes { out in
                bytes.withUnsafeBytes {
                    converter.convert($0, into: I420Destination(packed: out.baseAddress!, width: Self.width, height: Self.height))
                }
            }
        }
        #expect(outcome(jpeg) == .converted)
        #expect(outcome(jpeg + [0, 0, 0, 0]) == .converted, "padding after the end marker is ignored")
        let half = Array(jpeg.prefix(jpeg.count / 2))
        #expect(outcome(half) != .converted, "cut short, no end marker")
        #expect(outcome(half + [0xFF, 0xD9]) != .converted, "cut short, an end marker put back")
        #expect(outcome(Array(jpeg.dropFirst(2))) != .converted, "no start marker")
        #expect(outcome([UInt8](repeating: 0xFF, count: 4096)) != .converted)
        let small = try CameraPictureConverter(pixelFormat: .mjpeg, width: 320, height: 240, device: "test")
        let wrongSize = picture.withUnsafeMutableBytes { out in
            jpeg.withUnsafeBytes { small.convert($0, into: I420Destination(packed: out.baseAddress!, width: 320, height: 240)) }
        }
        #expect(wrongSize != .converted, "a 640x480 JPEG in a 320x240 stream")
    }

    /// Pixel format codes print as v4l2-ctl prints them, a big-endian variant included.
    @Test func pixelFormatsPrintAsV4L2CtlDoes() throws {
        #expect(V4L2PixelFormat.yuyv.description == "YUYV" && V4L2PixelFormat.rgb24.description == "RGB3")
        let y16 = try #require(V4L2PixelFormat("Y16 "))
        #expect(y16.description == "Y16")
        #expect(V4L2PixelFormat(rawValue: y16.rawValue | 0x8000_0000).description == "Y16 -BE")
    }

    // MARK: The replay source, end to end

    /// Recorded YUYV and MJPEG replayed into a lossless movie decode to exactly the pictures the
    /// converter makes, at 45 dB or more from ffmpeg's conversion; the MJPEG movie says full
    /// range (VUI and `colr` 'nclx'), so ffmpeg shows the same colours as for the JPEGs.
    @Test(arguments: ["yuyv", "mjpeg"])
    func aReplayRecordsThePicturesItWasGiven(_ kind: String) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let input = dir.file("in.\(kind)"), reference = dir.file("ref.yuv"), movie = dir.file("out.mov")
        let size = "\(Self.width)x\(Self.height)"
        if kind == "mjpeg" {
            try makeMJPEG(input, sampling: "2x1,1x1,1x1", frames: 10, in: dir)
            try ffmpeg(["-f", "mjpeg", "-i", input, "-pix_fmt", "yuvj420p", "-f", "rawvideo", reference])
        } else {
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "10", "-pix_fmt", "yuyv422",
                        "-f", "rawvideo", input])
            try ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", size, "-i", input, "-pix_fmt", "yuv420p", "-f", "rawvideo", reference])
        }
        let source = try CameraReplaySource(path: input, width: kind == "mjpeg" ? nil : Self.width,
                                            height: kind == "mjpeg" ? nil : Self.height, frameRate: FrameRate(frames: 25))
        #expect(source.format.width == Self.width && source.format.height == Self.height)
        #expect((source.format.color?.isFullRange ?? false) == (kind == "mjpeg"))
        var settings = VideoEncoderSettings()
        settings.preset = "ultrafast"
        settings.profile = "high444"
        settings.rateControl = .constantQuality(crf: 0)
        let result = try await recordUntilEnd(source, to: movie, settings: settings)
        #expect(result.frameCount == 10 && result.corruptedFrameCount == 0 && result.droppedFrameCount == 0, "\(result)")
        let decoded = dir.file("decoded.yuv")
        try ffmpeg(["-i", movie, "-pix_fmt", kind == "mjpeg" ? "yuvj420p" : "yuv420p", "-f", "rawvideo", decoded])
        try expectPlanesMatch(Array(try Data(contentsOf: URL(fileURLWithPath: decoded))), reference: reference, minimum: 45, kind)
        let video = try #require(try ffprobeStreams(movie).first)
        #expect(video.nb_frames == "10" && video.avg_frame_rate == "25/1")
        let info = try MovieInfo(path: movie)
        let color = try #require(info.videoTrack?.color)
        #expect(color.isFullRange == (kind == "mjpeg"))
        if kind == "mjpeg" {
            let probed = try run("ffprobe", ["-v", "error", "-show_entries", "stream=color_range,color_space", "-of", "csv=p=0", movie])
            #expect(probed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "pc,smpte170m")
            // The colours ffmpeg shows: the movie's and the JPEGs' as RGB, within the 4:2:2 to
            // 4:2:0 chroma difference. Read as video range, the picture would be off by far more.
            let movieRGB = dir.file("movie.rgb"), jpegRGB = dir.file("jpeg.rgb")
            try ffmpeg(["-i", movie, "-pix_fmt", "rgb24", "-f", "rawvideo", movieRGB])
            try ffmpeg(["-f", "mjpeg", "-i", input, "-pix_fmt", "rgb24", "-f", "rawvideo", jpegRGB])
            let colours = psnr(Array(try Data(contentsOf: URL(fileURLWithPath: movieRGB))),
                               Array(try Data(contentsOf: URL(fileURLWithPath: jpegRGB))))
            #expect(colours >= 30, "RGB \(colours) dB")
        }
    }

    /// A stream with a picture cut short, bytes that are no picture and a picture with garbage
    /// where a marker should be: the scanner finds every picture's own bounds (the garbage does
    /// not swallow the pictures after it), and both damaged pictures are counted as corrupt
    /// (libjpeg reads past the garbage, but only garbage before the end marker is harmless).
    @Test func aDamagedMJPEGStreamSkipsTheDamage() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clean = dir.file("clean.mjpeg"), damaged = dir.file("damaged.mjpeg"), movie = dir.file("out.mov")
        try makeMJPEG(clean, sampling: "ffmpeg:yuvj422p", frames: 7, in: dir)
        let pictures = try jpegPictures(clean)
        // 0, 1, half of 2, garbage, 3, 4 with no marker where its second segment should start,
        // 5, 6.
        var bytes = pictures[0] + pictures[1] + Array(pictures[2].prefix(pictures[2].count / 2))
        bytes += [UInt8](repeating: 0x55, count: 1000)
        var broken = pictures[4]
        let second = 4 + Int(broken[4]) << 8 + Int(broken[5])  // after SOI and the first segment
        broken.replaceSubrange(second..<second + 40, with: [UInt8](repeating: 0x11, count: 40))
        // Zero padding after a picture, as drivers leave, is no damage.
        bytes += pictures[3] + broken + pictures[5] + [UInt8](repeating: 0, count: 300) + pictures[6]
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        #expect(try jpegPictures(damaged).count == 7)
        let result = try await recordUntilEnd(try CameraReplaySource(path: damaged), to: movie, settings: VideoEncoderSettings())
        #expect(result.frameCount == 5, "\(result)")
        #expect(result.corruptedFrameCount == 2, "\(result)")
        #expect(try decodeAllFrames(movie).errors.isEmpty)
    }

    /// NV12 is lent to the encoder as it is, as a camera's NV12 buffers are.
    @Test func nv12IsLentWithoutConversion() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let input = dir.file("in.nv12")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "5", "-pix_fmt", "nv12", "-f", "rawvideo", input])
        let source = try CameraReplaySource(path: input, width: 320, height: 240)
        #expect(source.format.pixelFormat == .nv12 && source.cameraFormat == .nv12)
        let result = try await recordUntilEnd(source, to: dir.file("out.mov"), settings: VideoEncoderSettings())
        #expect(result.frameCount == 5)
    }

    @Test func badReplaysAreRefusedWithTheReason() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let raw = dir.file("short.yuyv")
        try Data(count: 1000).write(to: URL(fileURLWithPath: raw))
        func refusal(_ body: () throws -> CameraReplaySource) -> String {
            do { _ = try body(); return "" } catch { return "\(error)" }
        }
        #expect(refusal { try CameraReplaySource(path: raw) }.contains("needs the picture size"))
        #expect(refusal { try CameraReplaySource(path: raw, width: 64, height: 48) }.contains("less than one 64x48 YUYV picture"))
        #expect(refusal { try CameraReplaySource(path: raw, width: 63, height: 48) }.contains("must be even"))
        #expect(refusal { try CameraReplaySource(path: dir.file("clip.avi"), width: 64, height: 48) }.contains("names no camera format"))
        #expect(refusal { try CameraReplaySource(path: dir.file("missing.yuyv"), width: 64, height: 48) }.contains("missing.yuyv"))
        let notJPEG = dir.file("noise.mjpeg")
        try Data(repeating: 0x55, count: 5000).write(to: URL(fileURLWithPath: notJPEG))
        #expect(refusal { try CameraReplaySource(path: notJPEG) }.contains("no JPEG picture"))
        #expect(refusal { try CameraReplaySource(path: raw, width: 64) }.contains("give both width and height"))
        let jpegs = dir.file("in.mjpeg")
        try makeMJPEG(jpegs, sampling: "ffmpeg:yuvj420p", frames: 1, in: dir)
        #expect(refusal { try CameraReplaySource(path: jpegs, width: 320, height: 240) }.contains("the pictures are 640x480, not 320x240"))
        #expect(throws: DeviceError.self) { try CameraPictureConverter(pixelFormat: .yuyv, width: 63, height: 48, device: "test") }
    }

    /// `movrec record --video FILE.yuyv --size WxH --fps N` and `--video FILE.mjpeg`.
    @Test func movrecRecordsReplays() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let yuyv = dir.file("in.yuyv"), mjpeg = dir.file("in.mjpeg")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "12", "-pix_fmt", "yuyv422", "-f", "rawvideo", yuyv])
        try makeMJPEG(mjpeg, sampling: "ffmpeg:yuvj422p", frames: 8, in: dir)
        let movrec = try movrecPath()
        let first = try run(movrec, ["record", dir.file("a.mov"), "--video", yuyv, "--size", "320x240", "--fps", "24", "--quiet"])
        #expect(first.status == 0, "\(first.error)")
        let second = try run(movrec, ["record", dir.file("b.mov"), "--video", mjpeg, "--quiet"])
        #expect(second.status == 0, "\(second.error)")
        let a = try #require(try ffprobeStreams(dir.file("a.mov")).first)
        #expect(a.nb_frames == "12" && a.avg_frame_rate == "24/1" && a.width == 320)
        let b = try #require(try ffprobeStreams(dir.file("b.mov")).first)
        #expect(b.nb_frames == "8" && b.width == Self.width)
        let noSize = try run(movrec, ["record", dir.file("c.mov"), "--video", yuyv, "--quiet"])
        #expect(noSize.status != 0 && noSize.error.contains("needs the picture size"), "\(noSize.error)")
    }

    // MARK: Helpers

    /// Runs ffmpeg; its pixel-format conversions average (`-sws_flags area`, an output option)
    /// as libyuv and the 4:2:0 definition do, rather than its default bicubic filter, which
    /// differs by 33–43 dB on testsrc2's sharp colour edges.
    func ffmpeg(_ arguments: [String]) throws {
        let result = try run("ffmpeg", ["-nostdin", "-y", "-v", "error"] + arguments.dropLast() + ["-sws_flags", "area+accurate_rnd", arguments.last!])
        guard result.status == 0 else { throw MissingTool(description: "ffmpeg \(arguments.joined(separator: " ")): \(result.error)") }
    }

    /// A Motion-JPEG stream of testsrc2 pictures: ffmpeg's encoder for `ffmpeg:PIXFMT`, else
    /// cjpeg with those sampling factors (or `grey`) at quality 90, as webcams send.
    func makeMJPEG(_ path: String, sampling: String, frames: Int, in dir: TemporaryDirectory) throws {
        let source = ["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=30", "-frames:v", "\(frames)"]
        if sampling.hasPrefix("ffmpeg:") {
            return try ffmpeg(source + ["-pix_fmt", String(sampling.dropFirst(7)), "-q:v", "3", "-f", "mjpeg", path])
        }
        try ffmpeg(source + [dir.file("frame-%03d.ppm")])
        var stream: [UInt8] = []
        for index in 1...frames {
            let picture = dir.file(String(format: "frame-%03d.ppm", index)), jpeg = dir.file("frame.jpg")
            let options = sampling == "grey" ? ["-grayscale"] : ["-sample", sampling]
            let made = try run("cjpeg", ["-quality", "90"] + options + ["-outfile", jpeg, picture])
            guard made.status == 0 else { throw MissingTool(description: "cjpeg: \(made.error)") }
            stream += Array(try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        }
        try Data(stream).write(to: URL(fileURLWithPath: path))
    }

    /// The pictures of a Motion-JPEG file, as the replay source's scanner finds them.
    func jpegPictures(_ path: String) throws -> [[UInt8]] {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        var scanner = MJPEGFrameScanner(file: file)
        var pictures: [[UInt8]] = []
        var offset: UInt64 = 0
        while let next = try scanner.nextPicture(from: offset) {
            pictures.append(try file.read(at: next.offset, count: next.count))
            offset = next.offset + UInt64(next.count)
        }
        return pictures
    }

    func convertAll(_ buffers: [[UInt8]], _ converter: CameraPictureConverter) throws -> [UInt8] {
        let size = PixelFormat.i420.byteCount(width: converter.width, height: converter.height)
        var out: [UInt8] = []
        for buffer in buffers {
            var picture = [UInt8](repeating: 0, count: size)
            let outcome = picture.withUnsafeMutableBytes { destination in
                buffer.withUnsafeBytes {
                    converter.convert($0, into: I420Destination(packed: destination.baseAddress!, width: converter.width,
                                                                height: converter.height))
                }
            }
            try #require(outcome == .converted, "\(outcome)")
            out += picture
        }
        return out
    }

    /// Compares I420 pictures plane by plane with a reference file of the same pictures.
    func expectPlanesMatch(_ ours: [UInt8], reference path: String, minimum: Double, _ label: String) throws {
        let reference = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(ours.count == reference.count, "\(label): \(ours.count) bytes, the reference \(reference.count)")
        let luma = Self.width * Self.height, chroma = luma / 4, picture = luma + 2 * chroma
        var planes: [[UInt8]] = [[], [], []], referencePlanes: [[UInt8]] = [[], [], []]
        for start in stride(from: 0, to: ours.count, by: picture) {
            for (index, range) in [(0, 0..<luma), (1, luma..<luma + chroma), (2, luma + chroma..<picture)] {
                planes[index] += ours[start + range.lowerBound..<start + range.upperBound]
                referencePlanes[index] += reference[start + range.lowerBound..<start + range.upperBound]
            }
        }
        for (name, index) in [("Y", 0), ("U", 1), ("V", 2)] {
            let db = psnr(planes[index], referencePlanes[index])
            #expect(db >= minimum, "\(label) \(name): \(db) dB")
        }
    }
}

/// Peak signal-to-noise ratio of two equally long 8-bit signals, in dB (infinite when equal).
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var sum = 0.0
    for i in a.indices {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// An RGB picture sampled as a BGGR Bayer mosaic (V4L2 `BA81`): B at even rows' even columns,
/// R at odd rows' odd columns, G elsewhere.
func bayerBGGR(_ rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
    var mosaic = [UInt8](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let channel = y % 2 == 0 ? (x % 2 == 0 ? 2 : 1) : (x % 2 == 0 ? 1 : 0)
            mosaic[y * width + x] = rgb[(y * width + x) * 3 + channel]
        }
    }
    return mosaic
}

extension Array where Element == UInt8 {
    func chunks(of size: Int) -> [[UInt8]] {
        stride(from: 0, to: count - size + 1, by: size).map { Array(self[$0..<$0 + size]) }
    }
}

/// Records `source` alone until it ends.
func recordUntilEnd(_ source: any VideoSource, to path: String, settings: VideoEncoderSettings) async throws -> RecordingResult {
    try await recordUntilEnd(source, with: MovieFileOutput(encoderSettings: settings), to: path)
}

/// Records `source` through `output` until the source ends.
func recordUntilEnd(_ source: any VideoSource, with output: MovieFileOutput, to path: String) async throws -> RecordingResult {
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(source)
        try config.addOutput(output)
    }
    try await session.startRunning()
    try await output.startRecording(to: path)
    var result: RecordingResult?
    for await event in output.events {
        if case .didFinishRecording(let finished) = event {
            result = finished
            break
        }
    }
    await session.stopRunning()
    return try #require(result)
}
