import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// Photos end to end: the test pattern through libturbojpeg into a JPEG whose Exif metadata
/// exiftool reads back and whose stored pixels ffmpeg decodes.
@Suite(.serialized) struct PhotoOutputTests {
    /// What `exiftool -j -n` prints for a photo.
    struct ExifToolTags: Decodable {
        var Orientation: Int?
        var Make: String?
        var Model: String?
        var DateTimeOriginal: String?
        var OffsetTimeOriginal: String?
        var ImageWidth: Int?
        var ImageHeight: Int?
    }

    func exiftool(_ path: String) throws -> ExifToolTags {
        let result = try run("exiftool", ["-j", "-n", "-Orientation", "-Make", "-Model", "-DateTimeOriginal",
                                          "-OffsetTimeOriginal", "-ImageWidth", "-ImageHeight", path])
        #expect(result.status == 0, "exiftool failed on \(path): \(result.error)")
        return try #require(try JSONDecoder().decode([ExifToolTags].self, from: result.outputData).first)
    }

    /// Runs a session with a 320x240 test pattern and `output`, then stops it, whatever `body`
    /// throws.
    func withRunningSession<T>(_ output: PhotoOutput, pixelFormat: PixelFormat = .i420,
                               _ body: () async throws -> T) async throws -> T {
        try await withTestPatternSession(output, width: 320, height: 240, fps: 30, pixelFormat: pixelFormat, body)
    }

    /// A wall-clock moment as Exif writes it: local time, `YYYY:MM:DD HH:MM:SS`.
    func exifDateTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// The local time zone's offset as Exif writes it: `+HH:MM`.
    func exifOffset(_ date: Date) -> String {
        let minutes = TimeZone.current.secondsFromGMT(for: date) / 60
        return (minutes < 0 ? "-" : "+") + String(format: "%02d:%02d", abs(minutes) / 60, abs(minutes) % 60)
    }

    /// The markers of the stored (not rotated) pixels: the mean colour of 10x10 patches 5 pixels
    /// in from the top corners, decoded by ffmpeg to RGB without applying any orientation.
    func topCornerColours(_ path: String) throws -> (left: (r: Int, g: Int, b: Int), right: (r: Int, g: Int, b: Int)) {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-noautorotate", "-i", path,
                                        "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(result.status == 0, "ffmpeg failed on \(path): \(result.error)")
        let (width, height) = (320, 240)
        let pixels = [UInt8](result.outputData)
        try #require(pixels.count == width * height * 3, "decoded \(pixels.count) bytes, expected \(width)x\(height) RGB")
        func colour(x: Int, y: Int) -> (r: Int, g: Int, b: Int) {
            var r = 0, g = 0, b = 0
            for dy in 0..<10 { for dx in 0..<10 {
                let i = ((y + dy) * width + (x + dx)) * 3
                r += Int(pixels[i]); g += Int(pixels[i + 1]); b += Int(pixels[i + 2])
            } }
            return (r / 100, g / 100, b / 100)
        }
        return (colour(x: 5, y: 5), colour(x: width - 15, y: 5))
    }

    func expectRedLeftGreenRight(_ path: String) throws {
        let corners = try topCornerColours(path)
        let (red, green) = (corners.left, corners.right)
        #expect(red.r > 150 && red.g < 90 && red.b < 90, "top-left should be red: \(red)")
        #expect(green.g > 150 && green.r < 90 && green.b < 90, "top-right should be green: \(green)")
    }

    // MARK: End to end

    @Test(arguments: VideoOrientation.allCases)
    func exifOrientationMakeModelAndDateWithUnrotatedPixels(_ orientation: VideoOrientation) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("photo.jpg")
        let output = PhotoOutput(make: "MovieRecorder")
        try output.setVideoRotationAngle(Double(orientation.rotationAngle))
        output.setVideoMirrored(orientation.isMirrored)
        let before = Date()
        let result = try await withRunningSession(output) { try await output.capturePhoto(to: path) }
        let after = Date()

        #expect(result.path == path && result.width == 320 && result.height == 240)
        #expect(result.orientation == orientation)
        let bytes = try RandomAccessFile.readAll(path)
        #expect(result.byteCount == bytes.count)
        #expect(Array(bytes.prefix(2)) == [0xFF, 0xD8], "SOI")
        #expect(Array(bytes[2..<4]) == [0xFF, 0xE1], "the first segment is APP1")
        #expect(Array(bytes[6..<12]) == Array("Exif".utf8) + [0, 0], "holding Exif")
        #expect(!jpegHeaderMarkers(bytes).contains(0xE0), "no JFIF APP0 segment")

        let tags = try exiftool(path)
        #expect(tags.Orientation == orientation.exifOrientation, "Exif orientation for \(orientation)")
        #expect(tags.Make == "MovieRecorder")
        #expect(tags.Model == "test pattern", "the camera's name by default")
        let date = try #require(tags.DateTimeOriginal)
        #expect(date >= exifDateTime(before) && date <= exifDateTime(after), "\(date) local time, taken between \(before) and \(after)")
        #expect(tags.OffsetTimeOriginal == exifOffset(before))
        #expect(tags.ImageWidth == 320 && tags.ImageHeight == 240, "pixels are not rotated")
        try expectRedLeftGreenRight(path)
    }

    @Test func nv12FramesAreSplitIntoPlanesAndSettingsNameTheCamera() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("nv12.jpg")
        let output = PhotoOutput(make: "Output Make", model: "Output Model")
        try output.setVideoRotationAngle(270)
        let result = try await withRunningSession(output, pixelFormat: .nv12) {
            try await output.capturePhoto(to: path, settings: PhotoSettings(quality: 75, make: "Acme", model: "X1"))
        }
        #expect(result.orientation.exifOrientation == 8)
        let tags = try exiftool(path)
        #expect(tags.Orientation == 8 && tags.Make == "Acme" && tags.Model == "X1")
        #expect(tags.ImageWidth == 320 && tags.ImageHeight == 240)
        try expectRedLeftGreenRight(path)
    }

    @Test func higherQualityMakesALargerFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        let (low, high) = try await withRunningSession(output) {
            (try await output.capturePhoto(to: dir.file("low.jpg"), settings: PhotoSettings(quality: 20)),
             try await output.capturePhoto(to: dir.file("high.jpg"), settings: PhotoSettings(quality: 98)))
        }
        #expect(low.byteCount < high.byteCount, "quality 20: \(low.byteCount) bytes, 98: \(high.byteCount) bytes")
    }

    // MARK: Errors

    @Test func withoutARunningSessionItIsNotConnected() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        await #expect(throws: PhotoError.self) {
            do {
                _ = try await output.capturePhoto(to: dir.file("never.jpg"))
            } catch let error as PhotoError {
                #expect(error.code == .notConnected)
                #expect(error.message.hasPrefix("PhotoOutput:"), "the message names the output: \(error)")
                throw error
            }
        }
        // In a session that is not running, too.
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30)))
            try config.addOutput(output)
        }
        await #expect { _ = try await output.capturePhoto(to: dir.file("never.jpg")) } throws: { error in
            (error as? PhotoError)?.code == .notConnected
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("never.jpg")))
    }

    @Test func anExistingFileIsRefusedUnlessOverwriting() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("taken.jpg")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let output = PhotoOutput()
        try await withRunningSession(output) {
            await #expect { _ = try await output.capturePhoto(to: path) } throws: { error in
                (error as? PhotoError)?.code == .fileExists && "\(error)".contains(path)
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
            let result = try await output.capturePhoto(to: path, overwrite: true)
            #expect(result.byteCount > 1000)
        }
        #expect(Array(try RandomAccessFile.readAll(path).prefix(4)) == [0xFF, 0xD8, 0xFF, 0xE1])
    }

    @Test func aSilentCameraTimesOut() async throws {
        /// A camera that starts and never delivers a frame.
        final class SilentCamera: VideoSource {
            let name = "silent camera"
            let format = VideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
            let isLive = true
            func start(handler: @escaping @Sendable (VideoSourceEvent) -> Void) throws {}
            func stop() {}
        }
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let output = PhotoOutput()
        output.frameTimeout = .milliseconds(300)
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(SilentCamera())
            try config.addOutput(output)
        }
        try await session.startRunning()
        let start = ContinuousClock.now
        await #expect { _ = try await output.capturePhoto(to: dir.file("never.jpg")) } throws: { error in
            (error as? PhotoError)?.code == .timedOut && "\(error)".hasPrefix("PhotoOutput:")
        }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(300) && waited < .seconds(2), "waited \(waited)")
        await session.stopRunning()
        #expect(!FileManager.default.fileExists(atPath: dir.file("never.jpg")))
    }

    @Test func qualityOutOfRangeIsRefused() async throws {
        let output = PhotoOutput()
        await #expect { _ = try await output.capturePhoto(to: "/nonexistent/q.jpg", settings: PhotoSettings(quality: 0)) }
            throws: { error in (error as? PhotoError)?.code == .encodingFailed }
    }

    // MARK: Bytes

    /// Parses hex digits, ignoring spaces and line breaks.
    func hex(_ text: String) -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }
        return stride(from: 0, to: digits.count, by: 2).map { i in
            let start = digits.index(digits.startIndex, offsetBy: i)
            return UInt8(digits[start..<digits.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    /// One case written out by hand from Exif 2.32 §4.5.4 and §4.6 and TIFF 6.0 §2: 90°
    /// mirrored (Exif 5), a make that is stored after IFD0 and a model short enough to sit in
    /// its entry. Offsets count from the TIFF header's first byte (the `M` of `MM`).
    @Test func exifSegmentBytesWrittenOutByHand() throws {
        let orientation = try VideoOrientation(rotationAngle: 90, isMirrored: true)
        let metadata = ExifMetadata(orientation: orientation.exifOrientation, make: "Acme", model: "X1",
                                    dateTimeOriginal: "2026:01:01 12:34:56", offsetTimeOriginal: "+01:00",
                                    pixelWidth: 320, pixelHeight: 240)
        let expected = hex("""
            FFE1 010E                       APP1, 270 bytes counting the length itself
            457869660000                    Exif\\0\\0
            4D4D 002A 00000008              TIFF header: big-endian, 42, IFD0 at 8
            0008                            IFD0 (8): 8 entries
            010F 0002 00000005 0000006E     Make, ASCII, 5 ("Acme\\0"), at 110
            0110 0002 00000003 58310000     Model, ASCII, 3, "X1\\0" in the entry
            0112 0003 00000001 00050000     Orientation, SHORT, 5 (90° mirrored), left-justified
            011A 0005 00000001 00000074     XResolution, RATIONAL, at 116
            011B 0005 00000001 0000007C     YResolution, RATIONAL, at 124
            0128 0003 00000001 00020000     ResolutionUnit, SHORT, 2 (inches)
            0213 0003 00000001 00010000     YCbCrPositioning, SHORT, 1 (centered)
            8769 0004 00000001 00000084     Exif IFD pointer, LONG, 132
            00000000                        no next IFD
            41636D6500 00                   110: "Acme\\0", padded to an even length
            00000048 00000001               116: 72/1
            00000048 00000001               124: 72/1
            0008                            Exif IFD (132): 8 entries
            9000 0007 00000004 30323332     ExifVersion, UNDEFINED, "0232"
            9003 0002 00000014 000000EA     DateTimeOriginal, ASCII, 20, at 234
            9011 0002 00000007 000000FE     OffsetTimeOriginal, ASCII, 7, at 254
            9101 0007 00000004 01020300     ComponentsConfiguration, Y Cb Cr -
            A000 0007 00000004 30313030     FlashpixVersion, "0100"
            A001 0003 00000001 00010000     ColorSpace, SHORT, 1 (sRGB)
            A002 0004 00000001 00000140     PixelXDimension, LONG, 320
            A003 0004 00000001 000000F0     PixelYDimension, LONG, 240
            00000000                        no next IFD
            323032363A30313A3031            234: "2026:01:01
            2031323A33343A353600            12:34:56\\0"
            2B30313A303000 00               254: "+01:00\\0", padded
            """.split(separator: "\n").map { line in
                // Keep the hex columns; drop the words after them.
                line.split(separator: " ").prefix { $0.allSatisfy(\.isHexDigit) }.joined()
            }.joined())
        let segment = try #require(metadata.app1Segment())
        #expect(segment == expected, "got \(segment.map { String($0, radix: 16) })")
        #expect(segment.count == 2 + 270)
    }

    @Test func jfifSegmentIsReplacedByTheExifSegment() throws {
        let jpeg = hex("FFD8" + "FFE0 0010 4A46494600 0101 00 0001 0001 00 00" + "FFDB 0004 ABCD" + "FFDA 0002 1234 FFD9")
        let exif = hex("FFE1 0004 EEEE")
        let spliced = try #require(JPEGHeader.insertingFirstSegment(exif, replacingJFIFIn: jpeg))
        #expect(spliced == hex("FFD8 FFE1 0004 EEEE FFDB 0004 ABCD FFDA 0002 1234 FFD9"))
        #expect(JPEGHeader.insertingFirstSegment(exif, replacingJFIFIn: hex("FFD9 0000")) == nil, "no SOI")
        #expect(JPEGHeader.insertingFirstSegment(exif, replacingJFIFIn: hex("FFD8 FFE0 0040 00")) == nil, "truncated")
    }
}
