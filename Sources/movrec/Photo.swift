import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec photo`: one still as JPEG.
enum PhotoCommand {
    static let usage = """
        photo OUT.jpg [--video DEVICE|testsrc] [--size WxH] [--rotation A] [--mirror]
              [--quality N] [--overwrite]
            Capture one still as JPEG; the orientation goes into the Exif Orientation tag, the
            pixels are not rotated.
        """
}

/// `movrec photo OUT.jpg [--video DEVICE|testsrc] [--size WxH] [--rotation A] [--mirror] [--quality N] [--overwrite]`
func photo(_ arguments: Arguments) async throws -> Int32 {
    var args = arguments
    let videoSpec = try args.option("--video") ?? "/dev/video0"
    let sizeText = try args.option("--size")
    let rotationText = try args.option("--rotation") ?? "0"
    let qualityText = try args.option("--quality") ?? "90"
    let mirror = args.flag("--mirror")
    let overwrite = args.flag("--overwrite")
    try args.finish(positionalCount: 1...1)
    guard let angle = Double(rotationText) else { throw Arguments.UsageError(description: "--rotation \(rotationText) is not a number") }
    guard let quality = Int(qualityText) else { throw Arguments.UsageError(description: "--quality \(qualityText) is not a whole number") }
    var size: (Int, Int)?
    if let sizeText {
        let parts = sizeText.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw Arguments.UsageError(description: "--size \(sizeText) is not WIDTHxHEIGHT")
        }
        size = (w, h)
    }
    let video = try makeVideoSource(videoSpec, size: size, frameRate: nil)
    let model = (video as? V4L2Camera)?.device.name ?? video.name
    let output = PhotoOutput(model: model)
    try output.setVideoRotationAngle(angle)
    output.setVideoMirrored(mirror)
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(video)
        try config.addOutput(output)
    }
    try await session.startRunning()
    do {
        let result = try await output.capturePhoto(to: args.positional[0], overwrite: overwrite,
                                                   settings: PhotoSettings(quality: quality, model: model))
        await session.stopRunning()
        print(result)
        return 0
    } catch let error as PhotoError where error.code == .fileExists {
        await session.stopRunning()
        throw CommandError(description: "\(args.positional[0]) exists; choose another name, or pass --overwrite")
    } catch {
        await session.stopRunning()
        throw error
    }
}
