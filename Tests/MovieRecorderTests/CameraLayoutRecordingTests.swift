import Foundation
import Synchronization
import Testing
@testable import MovieCapture
@testable import MovieEncoding
import MovieContainer
@testable import MovieRecorder

extension CameraFormatTests {
    /// A replayed YUYV camera recorded by an encoder that takes YUYV: while the recording runs
    /// the source lends its pictures unconverted (none converted before the encoder has it),
    /// and lets go after; the movie holds the camera's pictures. An encoder that does not take
    /// YUYV gets pictures converted at capture, as always.
    @Test(arguments: [true, false])
    func aYUYVCameraFeedsAnEncoderThatTakesYUYVUnconverted(adopting: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let input = dir.file("in.yuyv"), reference = dir.file("ref.yuv"), movie = dir.file("out.mov")
        let size = "\(Self.width)x\(Self.height)"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "10", "-pix_fmt", "yuyv422", "-f", "rawvideo", input])
        try ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", size, "-i", input, "-pix_fmt", "yuv420p", "-f", "rawvideo", reference])
        let source = try CameraReplaySource(path: input, width: Self.width, height: Self.height, frameRate: FrameRate(frames: 25))
        var settings = VideoEncoderSettings()
        settings.preset = "ultrafast"
        settings.profile = "high444"
        settings.rateControl = .constantQuality(crf: 0)
        let output = MovieFileOutput(encoderSettings: settings)
        let standIn = Mutex<LayoutAdoptingStandInEncoder?>(nil)
        output.useStandInVideoEncoder { format, timescale, settings in
            let encoder = try LayoutAdoptingStandInEncoder(format: format, timescale: timescale, settings: settings, adopting: adopting)
            standIn.withLock { $0 = encoder }
            return encoder
        }
        let result = try await recordUntilEnd(source, with: output, to: movie)
        #expect(result.frameCount == 10 && result.droppedFrameCount == 0, "\(result)")
        let seen = try #require(standIn.withLock { $0 }).seen.withLock { $0 }
        // The replay converts its first picture before it waits for a consumer, so before the
        // recording asks; every later one is lent.
        #expect(seen.frames == 10 && seen.lent == (adopting ? 9 : 0), "\(seen)")
        #expect(seen.convertedBeforeEncoding == 0, "\(seen.convertedBeforeEncoding) lent pictures converted before the encoder had them")
        #expect(!source.nativePictures.isOn, "the recording still asks for the camera's own pictures after it finished")
        let decoded = dir.file("decoded.yuv")
        try ffmpeg(["-i", movie, "-pix_fmt", "yuv420p", "-f", "rawvideo", decoded])
        try expectPlanesMatch(Array(try Data(contentsOf: URL(fileURLWithPath: decoded))), reference: reference, minimum: 45,
                              adopting ? "lent" : "converted")
    }
}
