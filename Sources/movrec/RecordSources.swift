import MovieCapture
import MovieRecorder

/// What `movrec record` records from: the video and audio sources, and with `--gravity` the
/// accelerometer and the camera's mounting.
struct RecordSources {
    var video: any VideoSource
    var audio: (any AudioSource)?
    var gravity: (any GravitySource)?
    /// `--mounting`; otherwise the driver's for a V4L2 camera (nil here), the back of the
    /// device for anything else.
    var mounting: CameraMounting?

    /// Opens the sources `options` name.
    /// - Throws: the source's error when one cannot be opened; `Arguments.UsageError` for a bad
    ///   `--gravity` or `--mounting`, or for `--gravity` together with `--rotation`.
    init(_ options: RecordOptions) throws {
        video = try makeVideoSource(options.video, size: options.size.map { ($0.width, $0.height) }, frameRate: options.frameRate,
                                    marksSeconds: options.syncMarks)
        audio = try makeAudioSource(options.audio, marksSeconds: options.syncMarks, toneDrift: options.toneDrift)
        let polling: Duration = options.events?.impactThreshold == nil ? .milliseconds(100) : .milliseconds(10)
        gravity = try options.gravity.map { try makeGravitySource($0, pollingInterval: polling) }
        if gravity != nil && options.hasRotation {
            throw Arguments.UsageError(description: "--rotation and --gravity exclude each other: the angle comes from one or the other")
        }
        mounting = try options.mounting.map(parseMounting) ?? (video is V4L2Camera ? nil : CameraMounting(position: .back))
    }
}
