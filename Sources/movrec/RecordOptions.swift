import MovieContainer
import MovieEncoding

/// What `movrec record`'s command line asks for.
///
/// The sources, `--gravity` and `--mounting` stay as the user wrote them: opening a device is
/// the next step's job. `--max-size`, `--min-free` and `--fragment-interval` stay text too and
/// are checked where the movie output is built, after the sources have opened, so that a
/// missing device is reported before them.
struct RecordOptions {
    var output: String
    var video: String
    var audio: String
    var gravity: String?
    var mounting: String?
    var size: (width: Int, height: Int)?
    var frameRate: FrameRate?
    var orientation: VideoOrientation
    /// Whether `--rotation` was given, which `--gravity` excludes.
    var hasRotation: Bool
    var encoder: VideoEncoderSettings
    /// Whether `--preset` was given.
    var presetGiven: Bool
    var audioEncoding: AudioEncoderSettings
    /// `--no-clock-correction`: a microphone's audio keeps its own clock (the drift is still measured).
    var noClockCorrection: Bool
    /// Under pressure a live view gives way and the recording steps its frame rate evenly
    /// instead of losing frames where it must, unless `--no-degrade` (`--degrade` says the
    /// default).
    var degrade: Bool
    /// `--tone-drift PPM`: the tone's samples counted on a clock that far off, like a microphone's.
    var toneDrift: Int64?
    /// `--sync-marks`: the test pattern flashes and the tone clicks at every whole second.
    var syncMarks: Bool
    /// `--segment-duration`, `--segment-size`, `--keep-segments`, `--keep-bytes` (text until the
    /// output is built), `--strftime` and `--segment-on-rotation`.
    var segmentDuration: Duration?
    var segmentSize: String?
    var keepSegments: Int?
    var keepBytes: String?
    var strftime: Bool
    var segmentOnRotation: Bool
    /// Whether the output is a pattern of segment names rather than one file.
    var isSegmented: Bool {
        segmentDuration != nil || segmentSize != nil || keepSegments != nil || keepBytes != nil || strftime || segmentOnRotation
    }
    var maxDuration: Duration?
    var maxFileSize: String?
    var minFreeDiskSpace: String?
    /// `--control NAME=VALUE`, repeatable: camera controls set before recording.
    var controls: [String] = []
    var fragmentInterval: String?
    var noFragments: Bool
    var syncFragments: Bool
    var overwrite: Bool
    var quiet: Bool
    /// `--photo-every S` and `--photo-directory DIR`: photos taken while recording.
    var photoEvery: Duration?
    var photoDirectory: String?
    /// `--live`, `--live-size`, `--live-token`, `--hls-directory`, `--hls-window`, `--hls-mode`.
    var live: LiveOptions
    /// `--rtsp HOST:PORT` and its credentials.
    var rtsp: RTSPOptions
    /// `--upload s3://BUCKET/PREFIX` and how.
    var upload = UploadOptions()
    /// `--gps [HOST:PORT]`: gpsd's address for a timed location track.
    var gps: (host: String, port: UInt16)?
    /// `--event-directory` and the other event clip options.
    var events: EventOptions?

    /// Takes every option off `arguments`, then checks the values.
    /// - Throws: `Arguments.UsageError` naming the first bad option; `OrientationError` for an
    ///   angle other than 0, 90, 180 or 270.
    /// `movrec live` takes the same source options, without an output file, and serves on
    /// 127.0.0.1:8080 unless told otherwise.
    init(parsing arguments: Arguments, isLiveCommand: Bool = false) throws {
        var args = arguments
        live = try LiveOptions(taking: &args, defaultAddress: isLiveCommand)
        rtsp = try RTSPOptions(taking: &args)
        if !isLiveCommand { upload = try UploadOptions(taking: &args, takingURL: true) }
        events = isLiveCommand ? nil : try EventOptions(taking: &args)
        video = try args.option("--video") ?? "/dev/video0"
        controls = try args.options("--control")
        audio = try args.option("--audio") ?? "none"
        let sizeText = try args.option("--size")
        let fpsText = try args.option("--fps")
        let rotationText = try args.option("--rotation")
        let mirror = args.flag("--mirror")
        gravity = try args.option("--gravity")
        mounting = try args.option("--mounting")
        let durationText = try args.option("--duration")
        maxFileSize = try args.option("--max-size")
        minFreeDiskSpace = try args.option("--min-free")
        noFragments = args.flag("--no-fragments")
        fragmentInterval = try args.option("--fragment-interval")
        syncFragments = args.flag("--sync")
        overwrite = args.flag("--overwrite")
        let encoderText = try EncoderText(taking: &args)
        let audioCodecText = try args.option("--audio-codec")
        let audioBitrateText = try args.option("--audio-bitrate")
        syncMarks = args.flag("--sync-marks")
        noClockCorrection = args.flag("--no-clock-correction")
        let degradeOn = args.flag("--degrade")
        let degradeOff = args.flag("--no-degrade")
        guard !(degradeOn && degradeOff) else { throw Arguments.UsageError(description: "--degrade and --no-degrade: give one of them") }
        degrade = !degradeOff
        let toneDriftText = try args.option("--tone-drift")
        let segmentDurationText = try args.option("--segment-duration")
        segmentSize = try args.option("--segment-size")
        let keepSegmentsText = try args.option("--keep-segments")
        keepBytes = try args.option("--keep-bytes")
        strftime = args.flag("--strftime")
        segmentOnRotation = args.flag("--segment-on-rotation")
        quiet = args.flag("--quiet")
        let photoEveryText = try args.option("--photo-every")
        photoDirectory = try args.option("--photo-directory")
        let gpsText = args.optionalValue("--gps", default: "127.0.0.1:2947") { Self.hostAndPort($0) != nil }
        try args.finish(positionalCount: isLiveCommand ? 0...0 : 1...1)
        output = args.positional.first ?? ""

        gps = try gpsText.map { text in
            guard let address = Self.hostAndPort(text) else {
                throw Arguments.UsageError(description: "--gps \(text) is not HOST:PORT, such as 127.0.0.1:2947")
            }
            return address
        }
        hasRotation = rotationText != nil
        orientation = try Self.orientation(rotationText ?? "0", isMirrored: mirror)
        size = try sizeText.map(Self.size)
        frameRate = try fpsText.map(parseFrameRate)
        encoder = try encoderText.settings()
        presetGiven = encoderText.presetGiven
        audioEncoding = try Self.audioEncoding(codec: audioCodecText, bitrate: audioBitrateText)
        toneDrift = try toneDriftText.map { text in
            guard let ppm = Int64(text), abs(ppm) <= 9_000 else {
                throw Arguments.UsageError(description: "--tone-drift \(text) is not a whole number of ppm from -9000 to 9000 (the correction follows up to 1%)")
            }
            return ppm
        }
        segmentDuration = try segmentDurationText.map { text in
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 * 7 else {
                throw Arguments.UsageError(description: "--segment-duration \(text) is not a positive number of seconds")
            }
            return .nanoseconds(Int64(seconds * 1e9))
        }
        keepSegments = try keepSegmentsText.map { text in
            guard let count = Int(text), count >= 1 else { throw Arguments.UsageError(description: "--keep-segments \(text) is not a whole number of 1 or more") }
            return count
        }
        maxDuration = try durationText.map(Self.duration)
        photoEvery = try photoEveryText.map { text in
            guard let seconds = Double(text), seconds >= 0.05, seconds <= 86_400 else {
                throw Arguments.UsageError(description: "--photo-every \(text) is not a number of seconds from 0.05 to 86400")
            }
            return .nanoseconds(Int64(seconds * 1e9))
        }
        if photoDirectory != nil && photoEvery == nil {
            throw Arguments.UsageError(description: "--photo-directory needs --photo-every S")
        }
    }

    private static func orientation(_ text: String, isMirrored: Bool) throws -> VideoOrientation {
        guard let angle = Double(text) else { throw Arguments.UsageError(description: "--rotation \(text) is not a number") }
        return try VideoOrientation(rotationAngle: angle, isMirrored: isMirrored)
    }

    static func size(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw Arguments.UsageError(description: "--size \(text) is not WIDTHxHEIGHT, such as 1280x720")
        }
        return (w, h)
    }

    private static func duration(_ text: String) throws -> Duration {
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
            throw Arguments.UsageError(description: "--duration \(text) is not a positive number of seconds")
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// `--max-size` or `--min-free`: bytes, or with a K, M or G suffix (powers of 1024).
    static func byteCount(_ text: String?, _ name: String) throws -> UInt64? {
        guard let text else { return nil }
        let units: [Character: UInt64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
        let unit = text.last.flatMap { units[$0] } ?? 1
        guard let value = UInt64(unit == 1 ? text : String(text.dropLast())) else {
            throw Arguments.UsageError(description: "\(name) \(text) is not a size such as 500M")
        }
        return value * unit
    }

    /// `--fragment-interval`: seconds, up to a day.
    static func fragmentInterval(_ text: String) throws -> Duration {
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            throw Arguments.UsageError(description: "--fragment-interval \(text) is not a positive number of seconds (up to 86400)")
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }
}

extension RecordOptions {
    /// `--audio-codec aac|lpcm` and `--audio-bitrate KBITS` (AAC only), for `record` and `mux`;
    /// AAC unless `defaultCodec` says otherwise.
    static func audioEncoding(codec: String?, bitrate: String?, defaultCodec: AudioEncoderSettings.Codec = .aac) throws -> AudioEncoderSettings {
        var settings = AudioEncoderSettings(codec: defaultCodec)
        if let codec {
            guard let value = AudioEncoderSettings.Codec(rawValue: codec) else {
                throw Arguments.UsageError(description: "--audio-codec \(codec) is not aac or lpcm")
            }
            settings.codec = value
        }
        if let bitrate {
            guard let kbps = Int(bitrate), kbps > 0, kbps <= 2048 else {
                throw Arguments.UsageError(description: "--audio-bitrate \(bitrate) is not a positive number of kbit/s")
            }
            guard settings.codec == .aac else { throw Arguments.UsageError(description: "--audio-bitrate needs --audio-codec aac") }
            settings.bitRate = kbps * 1000
        }
        return settings
    }

    /// The encoder options: the codec, preset, tune and profile as given, the numbers still text
    /// until the whole command line has been read.
    private struct EncoderText {
        var given = VideoEncoderSettings()
        var crf, bitrate, keyint, bframes, threads, x264Params, x265Params: String?
        /// Whether `--preset` was given: without it a live HEVC recording gets one that keeps up.
        var presetGiven = false

        init(taking args: inout Arguments) throws {
            if let encoder = try args.option("--encoder") {
                switch encoder {
                case "software": given.encoder = .software
                case "auto": given.encoder = .automatic
                case let path where path.hasPrefix("/"): given.encoder = .hardware(device: path)
                default: throw Arguments.UsageError(description: "--encoder \(encoder) is not auto, software or a device such as /dev/video11")
                }
            }
            if let codec = try args.option("--codec") {
                switch codec {
                case "h264", "avc", "avc1": given.codec = .h264
                case "hevc", "h265", "hvc1": given.codec = .hevc
                default: throw Arguments.UsageError(description: "--codec \(codec) is not h264 or hevc")
                }
            }
            if let preset = try args.option("--preset") {
                given.preset = preset
                presetGiven = true
            }
            given.tune = try args.option("--tune")
            if let profile = try args.option("--profile") { given.profile = profile }
            crf = try args.option("--crf")
            bitrate = try args.option("--bitrate")
            keyint = try args.option("--keyint")
            bframes = try args.option("--bframes")
            threads = try args.option("--threads")
            x264Params = try args.option("--x264-params")
            x265Params = try args.option("--x265-params")
            if x264Params != nil && given.codec != .h264 { throw Arguments.UsageError(description: "--x264-params needs --codec h264") }
            if x265Params != nil && given.codec != .hevc { throw Arguments.UsageError(description: "--x265-params needs --codec hevc") }
            if case .hardware(let device) = given.encoder {
                let softwareOnly = [("--preset", presetGiven), ("--tune", given.tune != nil), ("--crf", crf != nil),
                                    ("--bframes", bframes != nil), ("--threads", threads != nil),
                                    ("--x264-params", x264Params != nil), ("--x265-params", x265Params != nil)]
                if let (option, _) = softwareOnly.first(where: { $0.1 }) {
                    throw Arguments.UsageError(description: "\(option) applies to x264 and x265 only, not to the hardware encoder \(device); leave it out, or use --bitrate and --keyint")
                }
            }
        }

        func settings() throws -> VideoEncoderSettings {
            var settings = given
            if crf != nil && bitrate != nil { throw Arguments.UsageError(description: "--crf and --bitrate exclude each other") }
            if let crf {
                guard let value = Double(crf) else { throw Arguments.UsageError(description: "--crf \(crf) is not a number") }
                settings.rateControl = .constantQuality(crf: value)
            }
            if let bitrate {
                guard let kbps = Int(bitrate), kbps > 0 else {
                    throw Arguments.UsageError(description: "--bitrate \(bitrate) is not a positive number of kbit/s")
                }
                settings.rateControl = .bitrate(kilobitsPerSecond: kbps, maximumKilobitsPerSecond: kbps, bufferKilobits: kbps)
            }
            settings.keyframeInterval = try Self.wholeNumber(keyint, "--keyint")
            settings.maxBFrames = try Self.wholeNumber(bframes, "--bframes")
            settings.threads = try Self.wholeNumber(threads, "--threads") ?? 0
            for pair in (x264Params ?? x265Params)?.split(separator: ":") ?? [] {
                let kv = pair.split(separator: "=", maxSplits: 1)
                settings.options[String(kv[0])] = kv.count == 2 ? String(kv[1]) : "1"
            }
            return settings
        }

        private static func wholeNumber(_ text: String?, _ name: String) throws -> Int? {
            guard let text else { return nil }
            guard let value = Int(text), value >= 0 else { throw Arguments.UsageError(description: "\(name) \(text) is not a whole number") }
            return value
        }
    }
}

extension RecordOptions {
    /// `HOST:PORT` (`[ADDRESS]:PORT` for IPv6) split, or nil when it is not one.
    static func hostAndPort(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.hasPrefix("-"), !host.contains("/") else { return nil }
        return (host, port)
    }
}
