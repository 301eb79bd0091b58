@_spi(Benchmarks) import MovieCapture
import MovieEncoding
import MovieRecorder

/// Case a2: recorded camera buffers (YUYV, NV12, MJPEG) through the public API — session,
/// replay source, movie file output — as a camera's buffers would go.
///
/// `replay --input IN --output OUT.mov --preset P [--width W --height H] [--crf N] [--keyint N]`
func replay(_ arguments: [String]) async throws {
    let options = Options(arguments)
    var settings = VideoEncoderSettings()
    settings.preset = try options.required("--preset")
    settings.rateControl = .constantQuality(crf: try options.number("--crf", default: 23))
    settings.keyframeInterval = Int(options.value("--keyint") ?? "250")
    let source = try CameraReplaySource(path: try options.required("--input"), width: options.value("--width").flatMap { Int($0) },
                                        height: options.value("--height").flatMap { Int($0) })
    let result = try await record(video: source, to: try options.required("--output"), settings: settings) { _ in }
    report("frames", Double(result.frameCount))
    report("dropped", Double(result.droppedFrameCount))
    let held = source.conversionStatistics
    report("holdMeanMs", held.meanMilliseconds)
    report("holdMaxMs", Double(held.maximumNanoseconds) / 1e6)
}

/// Case a2's conversion cells: milliseconds per picture for this library's stage and for
/// libv4lconvert on the same pictures, alternated round by round in one process; cold (every
/// picture from memory, as after a camera's DMA) and warm (one picture again and again).
///
/// `convert --input IN --width W --height H [--rounds N]`
func convert(_ arguments: [String]) throws {
    let options = Options(arguments)
    let input = try options.required("--input")
    guard let format = CameraReplaySource.cameraFormat(forExtensionOf: input),
          let width = options.value("--width").flatMap({ Int($0) }), let height = options.value("--height").flatMap({ Int($0) }) else {
        throw WorkerError("convert needs --input with a camera format's extension, --width and --height")
    }
    let rounds = Int(try options.number("--rounds", default: 9))
    var times: [String: [Double]] = [:]
    var refusal: String?
    for _ in 0..<rounds {
        for (name, fallback, warm) in [("stageMs", false, false), ("v4lconvertMs", true, false),
                                       ("stageWarmMs", false, true), ("v4lconvertWarmMs", true, true)] {
            guard !fallback || refusal == nil else { continue }
            do {
                times[name, default: []].append(try ConversionBenchmark.millisecondsPerPicture(
                    path: input, cameraFormat: format, width: width, height: height, usingFallback: fallback, warm: warm, rounds: 1))
            } catch where fallback {
                refusal = "\(error)"
            }
        }
    }
    for (name, values) in times.sorted(by: { $0.key < $1.key }) { report(name, values.sorted()[values.count / 2]) }
    if let refusal { print("refused \(refusal)") }
}
