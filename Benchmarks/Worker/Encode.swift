import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

/// Case a: a Y4M file through the public API — session, Y4M source, movie file output — to a
/// .mov, as an application would record a file.
///
/// `encode --input IN.y4m --output OUT.mov --preset P [--codec h264|hevc] [--tune T] [--crf N] [--keyint N]`
func encode(_ arguments: [String]) async throws {
    let options = Options(arguments)
    let input = try options.required("--input")
    let output = try options.required("--output")
    var settings = VideoEncoderSettings(codec: try codec(options))
    settings.preset = try options.required("--preset")
    settings.tune = options.value("--tune")
    settings.rateControl = .constantQuality(crf: Double(options.value("--crf") ?? "23") ?? 23)
    settings.keyframeInterval = Int(options.value("--keyint") ?? "250")
    let result = try await record(video: Y4MFileSource(path: input), to: output, settings: settings) { _ in }
    report("frames", Double(result.frameCount))
    report("dropped", Double(result.droppedFrameCount))
}

/// The codec `--codec h264|hevc` names; H.264 when it is not given.
func codec(_ options: Options) throws -> VideoCodecType {
    switch options.value("--codec") ?? "h264" {
    case "h264": return .h264
    case "hevc": return .hevc
    case let other: throw WorkerError("--codec \(other) is not h264 or hevc")
    }
}

/// Records `video` into `path` until the source ends or `stop` asks, and returns the result.
func record(video: any VideoSource, audio: (any AudioSource)? = nil, audioSettings: AudioEncoderSettings = .aac,
            to path: String, settings: VideoEncoderSettings,
            whileRecording: @Sendable (MovieFileOutput) async -> Void) async throws -> RecordingResult {
    let session = CaptureSession()
    let movie = MovieFileOutput(encoderSettings: settings)
    movie.audioSettings = audioSettings
    try await session.configure { config in
        try config.addInput(video)
        if let audio { try config.addInput(audio) }
        try config.addOutput(movie)
    }
    try await session.startRunning()
    try await movie.startRecording(to: path, overwrite: true)
    await whileRecording(movie)
    var result: RecordingResult?
    for await event in movie.events {
        if case .didFinishRecording(let finished) = event {
            result = finished
            break
        }
    }
    await session.stopRunning()
    guard let result, result.isPlayable else {
        throw WorkerError("the recording of \(path) did not finish playable: \(result.map { "\($0)" } ?? "no result")")
    }
    if let error = result.error, error.code != .sourceEnded, error.code != .maximumDurationReached {
        throw WorkerError("the recording of \(path) ended with: \(error)")
    }
    return result
}

/// `--name value` options.
struct Options {
    private var values: [String: String] = [:]
    private(set) var flags: Set<String> = []

    init(_ arguments: [String]) {
        var i = 0
        while i < arguments.count {
            let word = arguments[i]
            if i + 1 < arguments.count, !arguments[i + 1].hasPrefix("--") {
                values[word] = arguments[i + 1]
                i += 2
            } else {
                flags.insert(word)
                i += 1
            }
        }
    }

    func value(_ name: String) -> String? { values[name] }

    func required(_ name: String) throws -> String {
        guard let value = values[name] else { throw WorkerError("missing \(name)") }
        return value
    }

    func number(_ name: String, default fallback: Double) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text) else { throw WorkerError("\(name) \(text) is not a number") }
        return value
    }
}

struct WorkerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
