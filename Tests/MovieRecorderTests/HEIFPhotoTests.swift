import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// HEIF photos (HEVC through libheif) in every orientation, read back by independent readers:
/// exiftool (`irot` as Rotation, counter-clockwise; `ispe`; the Exif inside), libheif's own
/// `heif-convert` and ImageMagick (which apply `irot` and `imir`). The test pattern's red
/// marker is at the top left of the stored pixels and its green one at the top right.
@Suite struct HEIFPhotoTests {
    /// Where a stored corner is shown: turned clockwise by the angle, then flipped left-right.
    static func shown(_ corner: String, _ orientation: VideoOrientation) -> String {
        let cycle = ["TL", "TR", "BR", "BL"]
        let turned = cycle[(cycle.firstIndex(of: corner)! + orientation.rotationAngle / 90) % 4]
        guard orientation.isMirrored else { return turned }
        return ["TL": "TR", "TR": "TL", "BL": "BR", "BR": "BL"][turned]!
    }

    /// The marker colour ("red", "green" or "-") at each corner of an image as `reader` shows it.
    func corners(_ path: String) throws -> (corners: [String: String], width: Int, height: Int) {
        let size = try run("identify", ["-format", "%w %h", path])
        #expect(size.status == 0, "identify: \(size.error)")
        let parts = size.output.split(separator: " ").compactMap { Int($0) }
        let (width, height) = try (#require(parts.first), #require(parts.last))
        let raw = try run("convert", [path, "-depth", "8", "rgb:-"])
        let pixels = [UInt8](raw.outputData)
        try #require(pixels.count == width * height * 3, "convert gave \(pixels.count) bytes for \(width)x\(height)")
        func name(_ x: Int, _ y: Int) -> String {
            let i = (y * width + x) * 3
            let (r, g, b) = (pixels[i], pixels[i + 1], pixels[i + 2])
            if r > 150 && g < 100 && b < 100 { return "red" }
            if g > 150 && r < 100 && b < 100 { return "green" }
            return "-"
        }
        return (["TL": name(8, 8), "TR": name(width - 9, 8), "BL": name(8, height - 9), "BR": name(width - 9, height - 9)],
                width, height)
    }

    @Test(arguments: VideoOrientation.allCases)
    func everyOrientationIsShownByTheReadersWithThePixelsAsCaptured(_ orientation: VideoOrientation) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("photo.heic")
        let output = PhotoOutput(make: "MovieRecorder")
        try output.setVideoRotationAngle(Double(orientation.rotationAngle))
        output.setVideoMirrored(orientation.isMirrored)
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(TestPatternSource(width: 320, height: 240, frameRate: FrameRate(frames: 30)))
            try config.addOutput(output)
        }
        try await session.startRunning()
        let result = try await output.capturePhoto(to: path, settings: PhotoSettings(codec: .hevc))
        await session.stopRunning()
        #expect(result.codec == .hevc && result.width == 320 && result.height == 240 && result.orientation == orientation)

        // exiftool: the coded size, irot as counter-clockwise degrees, no Exif orientation.
        let tags = try run("exiftool", ["-n", "-s3", "-ImageSpatialExtent", "-Rotation", "-Orientation", "-Make", path])
        let lines = tags.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "320 240", "the pixels are stored as captured: \(lines)")
        let rotation = (360 - orientation.rotationAngle) % 360
        #expect(rotation == 0 ? !lines.contains { $0 == "90" || $0 == "180" || $0 == "270" } : lines.contains(String(rotation)),
                "irot: \(lines)")
        #expect(lines.contains("1") && lines.last == "MovieRecorder", "Exif Orientation 1 and the make: \(lines)")

        // heif-info: the shown size.
        let info = try run("heif-info", [path])
        let turned = orientation.rotationAngle % 180 != 0
        #expect(info.output.contains("image: \(turned ? "240x320" : "320x240")"), "heif-info: \(info.output)")

        // heif-convert and ImageMagick show the markers where the orientation puts them.
        let png = dir.file("shown.png")
        let converted = try run("heif-convert", [path, png])
        #expect(converted.status == 0, "heif-convert: \(converted.error)")
        let expected = [Self.shown("TL", orientation): "red", Self.shown("TR", orientation): "green"]
        for (reader, file) in [("heif-convert", png), ("ImageMagick", path)] {
            let seen = try corners(file)
            #expect(seen.width == (turned ? 240 : 320), "\(reader): \(seen.width)x\(seen.height)")
            for (corner, colour) in expected {
                #expect(seen.corners[corner] == colour, "\(reader), \(orientation): \(corner) should be \(colour): \(seen.corners)")
            }
        }
        print("heif \(orientation): exiftool \(lines.joined(separator: "/")), heif-info \(turned ? "240x320" : "320x240"), markers at \(expected)")
    }
}
