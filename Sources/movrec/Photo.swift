import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec photo`: one still, or a burst, as JPEG or HEIF.
enum PhotoCommand {
    static let usage = """
        photo OUT.jpg|OUT.heic [--video DEVICE|testsrc] [--size WxH] [--fps N[/D]] [--rotation A] [--mirror]
              [--quality N] [--prioritize speed|balanced|quality] [--thumbnail] [--burst N]
              [--interval S] [--no-zero-shutter-lag] [--deferred] [--overwrite]
            Capture a still as JPEG, or as HEIF (HEVC) when OUT ends in .heic or .heif. The
            orientation goes into a JPEG's Exif Orientation tag or a HEIF image's irot and imir
            properties; the pixels are not rotated. The photo takes the frame captured closest
            to the request (zero shutter lag) unless --no-zero-shutter-lag, which takes the next
            one. --burst N takes N photos --interval S apart (default one frame interval), named
            OUT-001.jpg and on (or OUT with a %d pattern), encoded while the next is taken, as
            fast as --prioritize allows (speed: fast DCT, quality at most 80; quality: optimized
            Huffman tables, or x265's slow preset). --thumbnail embeds a 160-pixel Exif
            thumbnail in a JPEG. --deferred writes a reduced proxy at once and replaces it with
            the full photo when it is ready. Each photo's line says which frame it took and how
            far from the request.
        """

    /// What `movrec photo` asks for.
    struct Options {
        var output: String
        var videoSpec: String
        var size: (width: Int, height: Int)?
        var frameRate: FrameRate?
        var angle: Double
        var mirror: Bool
        var quality: Int
        var prioritization: PhotoQualityPrioritization
        var thumbnail: Bool
        var burst: Int
        var interval: Duration?
        var zeroShutterLag: Bool
        var deferred: Bool
        var overwrite: Bool

        init(parsing arguments: Arguments) throws {
            var args = arguments
            videoSpec = try args.option("--video") ?? "/dev/video0"
            let sizeText = try args.option("--size"), fpsText = try args.option("--fps")
            let rotationText = try args.option("--rotation") ?? "0", qualityText = try args.option("--quality") ?? "90"
            let prioritizeText = try args.option("--prioritize") ?? "balanced"
            let burstText = try args.option("--burst") ?? "1", intervalText = try args.option("--interval")
            mirror = args.flag("--mirror")
            overwrite = args.flag("--overwrite")
            thumbnail = args.flag("--thumbnail")
            zeroShutterLag = !args.flag("--no-zero-shutter-lag")
            deferred = args.flag("--deferred")
            try args.finish(positionalCount: 1...1)
            output = args.positional[0]
            guard let angle = Double(rotationText) else { throw Arguments.UsageError(description: "--rotation \(rotationText) is not a number") }
            self.angle = angle
            guard let quality = Int(qualityText) else { throw Arguments.UsageError(description: "--quality \(qualityText) is not a whole number") }
            self.quality = quality
            guard let prioritization = PhotoQualityPrioritization(rawValue: prioritizeText) else {
                throw Arguments.UsageError(description: "--prioritize \(prioritizeText) is not speed, balanced or quality")
            }
            self.prioritization = prioritization
            guard let burst = Int(burstText), (1...10_000).contains(burst) else {
                throw Arguments.UsageError(description: "--burst \(burstText) is not a whole number from 1 to 10000")
            }
            self.burst = burst
            if let intervalText {
                guard let seconds = Double(intervalText), seconds >= 0, seconds <= 3600 else {
                    throw Arguments.UsageError(description: "--interval \(intervalText) is not a number of seconds from 0 to 3600")
                }
                interval = .nanoseconds(Int64(seconds * 1e9))
            }
            size = try sizeText.map(RecordOptions.size)
            frameRate = try fpsText.map(parseFrameRate)
        }
    }
}

/// `movrec photo OUT.jpg|OUT.heic [--video DEVICE|testsrc] [--burst N] [--interval S] …`
func photo(_ arguments: Arguments) async throws -> Int32 {
    let options = try PhotoCommand.Options(parsing: arguments)
    let video = try makeVideoSource(options.videoSpec, size: options.size, frameRate: options.frameRate)
    let model = (video as? V4L2Camera)?.device.name ?? video.name
    let output = PhotoOutput(model: model)
    try output.setVideoRotationAngle(options.angle)
    output.setVideoMirrored(options.mirror)
    output.isZeroShutterLagEnabled = options.zeroShutterLag
    output.isResponsiveCaptureEnabled = options.burst > 1
    output.isAutoDeferredPhotoDeliveryEnabled = options.deferred
    let session = CaptureSession()
    try await session.configure { config in
        try config.addInput(video)
        try config.addOutput(output)
    }
    try await session.startRunning()
    let finals = Task { await PhotoCommand.printEvents(output) }
    defer { finals.cancel() }
    let interval = options.interval ?? Duration.nanoseconds(Int64(video.format.frameRate.seconds) * 1_000_000_000 / Int64(max(1, video.format.frameRate.frames)))
    let failures = await PhotoCommand.burst(output, options, model: model, interval: interval)
    // Deferred photos are final before the program ends; the session may stop first.
    await session.stopRunning()
    await output.finishProcessing()
    return failures == 0 ? 0 : 1
}

extension PhotoCommand {
    /// Takes the photos, starting one every `interval`; prints each result in request order.
    /// - Returns: How many failed.
    static func burst(_ output: PhotoOutput, _ options: Options, model: String, interval: Duration) async -> Int {
        let clock = ContinuousClock(), start = clock.now
        var captures: [Task<PhotoResult, any Error>] = []
        var paths: [String] = []
        for index in 0..<options.burst {
            if index > 0 { try? await clock.sleep(until: start + interval * Double(index)) }
            let path = options.burst == 1 ? options.output : burstName(options.output, index + 1)
            paths.append(path)
            let settings = PhotoSettings(codec: codec(of: path), quality: options.quality, qualityPrioritization: options.prioritization,
                                         embeddedThumbnailPhotoFormat: options.thumbnail ? PhotoThumbnailFormat() : nil, model: model)
            captures.append(Task { try await output.capturePhoto(to: path, overwrite: options.overwrite, settings: settings) })
        }
        var failures = 0
        for (capture, path) in zip(captures, paths) {
            do {
                print(try await capture.value)
                fflush(nil)  // each line as it happens, to a pipe too
            } catch let error as PhotoError where error.code == .fileExists {
                failures += 1
                standardError("movrec: \(path) exists; choose another name, or pass --overwrite")
            } catch {
                failures += 1
                standardError("movrec: \(error)")
            }
        }
        return failures
    }

    /// Prints what replaces each deferred photo's proxy.
    static func printEvents(_ output: PhotoOutput) async {
        for await event in output.events {
            switch event {
            case .didFinishDeferredPhoto(let result):
                print("final: \(result)")
                fflush(nil)
            case .didFailDeferredPhoto(_, let path, let error):
                standardError("movrec: \(path): the full photo failed, the proxy stays: \(error)")
            default: break
            }
        }
    }

    /// The name of photo `number` of a burst: `output` with `%d` (or `%03d`…) filled in, else
    /// `-001` and on before its extension.
    static func burstName(_ output: String, _ number: Int) -> String {
        let digits = String(number)
        func padded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - digits.count)) + digits }
        let characters = Array(output)
        if let percent = characters.firstIndex(of: "%") {
            let spec = characters[(percent + 1)...].prefix { $0.isNumber }
            let end = percent + 1 + spec.count
            if end < characters.count, characters[end] == "d" {
                return String(characters[..<percent]) + padded(Int(String(spec)) ?? 0) + String(characters[(end + 1)...])
            }
        }
        let slash = output.lastIndex(of: "/").map { output.index(after: $0) } ?? output.startIndex
        guard let dot = output[slash...].lastIndex(of: ".") else { return output + "-" + padded(3) }
        return output[..<dot] + "-" + padded(3) + output[dot...]
    }
}

/// HEVC in HEIF for a name ending in `.heic` or `.heif` (any case), JPEG otherwise.
func codec(of path: String) -> PhotoCodec {
    let lower = path.lowercased()
    return lower.hasSuffix(".heic") || lower.hasSuffix(".heif") ? .hevc : .jpeg
}
