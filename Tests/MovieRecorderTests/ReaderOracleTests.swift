import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// ffprobe, mediainfo and exiftool — readers written by others — must see in every golden
/// movie what the writer meant: codecs, sizes, durations, the rotation, every frame decodable.
@Suite struct ReaderOracleTests {
    @Test(arguments: GoldenCase.all)
    func ffprobeReportsCodecsDurationsAndRotation(_ golden: GoldenCase) throws {
        let streams = try ffprobeStreams(golden.path)
        let video = try #require(streams.first { $0.codec_type == "video" })
        #expect(video.codec_name == (golden.isHEVC ? "hevc" : "h264"))
        #expect(video.codec_tag_string == (golden.isHEVC ? "hvc1" : "avc1"))
        #expect(video.width == 160 && video.height == 120, "tkhd size is the encoded, pre-rotation size")
        #expect(video.nb_frames == String(golden.frames))
        #expect(Double(video.duration ?? "") == 1.0)
        // ffprobe omits the display matrix for identity and prints 0 for a 180°+mirror matrix.
        #expect((video.rotation ?? 0) == golden.orientation.ffprobeRotation, "ffprobe rotation")
        if let audioName = golden.audio {
            let audio = try #require(streams.first { $0.codec_type == "audio" })
            let wav = try WAVFile(path: fixture(audioName))
            #expect(audio.codec_name == (golden.audioCodec == .aac ? "aac" : "pcm_s16le"))
            #expect(audio.sample_rate == String(wav.format.sampleRate))
            #expect(audio.channels == Int(wav.format.channelCount))
            #expect(Double(audio.duration ?? "") == 1.0)
            #expect(Double(audio.start_time ?? "") == 0, "the edit list hides the encoder's delay")
        } else {
            #expect(streams.count == 1)
        }
    }

    @Test(arguments: GoldenCase.all)
    func ffmpegDecodesEveryFrameWithoutError(_ golden: GoldenCase) throws {
        let decoded = try decodeAllFrames(golden.path)
        #expect(decoded.errors.isEmpty, "ffmpeg: \(decoded.errors)")
        #expect(decoded.videoFrames == golden.frames)
    }

    @Test(arguments: GoldenCase.all)
    func mediainfoReportsClockwiseRotation(_ golden: GoldenCase) throws {
        let result = try run("mediainfo", ["--Inform=Video;%Rotation%", golden.path])
        #expect(result.status == 0)
        let text = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Double(text.isEmpty ? "0" : text) == Double(golden.orientation.displayedClockwiseAngle), "mediainfo said '\(text)'")
    }

    @Test(arguments: GoldenCase.all)
    func exiftoolReportsRotationAndMatrix(_ golden: GoldenCase) throws {
        let result = try run("exiftool", ["-j", "-n", "-a", "-G1", "-Rotation", "-MatrixStructure", golden.path])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]).first
        let rotation = (json?["Composite:Rotation"] as? NSNumber)?.intValue
        #expect(rotation == golden.orientation.displayedClockwiseAngle)
        #expect(json?["Track1:MatrixStructure"] as? String == golden.exiftoolMatrix)
        #expect(json?["QuickTime:MatrixStructure"] as? String == "1 0 0 0 1 0 0 0 1", "mvhd matrix stays identity")
    }

    @Test(arguments: GoldenCase.all)
    func autorotatedFrameShowsTheMarkersWhereTheMatrixPutsThem(_ golden: GoldenCase) throws {
        let corners = try markerCorners(afterAutorotating: golden.path)
        #expect(corners?.red == golden.markerCorners.red, "red marker")
        #expect(corners?.green == golden.markerCorners.green, "green marker")
    }
}

/// Decodes the first frame with ffmpeg's autorotate into RGB and returns the corners where the
/// red and green markers (top-left and top-right of the encoded picture) are.
func markerCorners(afterAutorotating path: String) throws -> (red: GoldenCase.Corner, green: GoldenCase.Corner)? {
    let streams = try ffprobeStreams(path)
    let video = try #require(streams.first { $0.codec_type == "video" })
    let quarter = abs(video.rotation ?? 0) == 90
    let (width, height) = quarter ? (video.height!, video.width!) : (video.width!, video.height!)
    let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo",
                                    "-pix_fmt", "rgb24", "-"])
    let pixels = [UInt8](result.outputData)
    guard pixels.count == width * height * 3 else {
        Issue.record("decoded \(pixels.count) bytes, expected \(width)x\(height) RGB")
        return nil
    }
    // The mean colour of a 10x10 patch near each corner, inside the 40x30 (or 30x40) markers.
    func colour(x: Int, y: Int) -> (r: Int, g: Int, b: Int) {
        var r = 0, g = 0, b = 0
        for dy in 0..<10 { for dx in 0..<10 {
            let i = ((y + dy) * width + (x + dx)) * 3
            r += Int(pixels[i]); g += Int(pixels[i + 1]); b += Int(pixels[i + 2])
        } }
        return (r / 100, g / 100, b / 100)
    }
    let corners: [(GoldenCase.Corner, (r: Int, g: Int, b: Int))] = [
        (.topLeft, colour(x: 5, y: 5)), (.topRight, colour(x: width - 15, y: 5)),
        (.bottomLeft, colour(x: 5, y: height - 15)), (.bottomRight, colour(x: width - 15, y: height - 15)),
    ]
    let red = corners.filter { $0.1.r > 150 && $0.1.g < 90 && $0.1.b < 90 }.map(\.0)
    let green = corners.filter { $0.1.g > 150 && $0.1.r < 90 && $0.1.b < 90 }.map(\.0)
    #expect(red.count == 1 && green.count == 1, "one red and one green corner expected, found red \(red), green \(green)")
    guard let r = red.first, let g = green.first else { return nil }
    return (r, g)
}
