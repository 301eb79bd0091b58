@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// One golden movie: what it is made from, and what independent readers must say about it.
struct GoldenCase: CustomStringConvertible, Sendable {
    var name: String
    var video: String
    var audio: String?
    /// How the WAV goes in: as PCM, or encoded to AAC.
    var audioCodec = AudioEncoderSettings.Codec.lpcm
    var orientation: VideoOrientation
    /// The tkhd matrix as exiftool prints it (a b u c d v tx ty w), written out by hand from the
    /// reference tables for a 160x120 picture.
    var exiftoolMatrix: String
    /// Where the red (encoded top-left) and green (encoded top-right) markers land when a
    /// player applies the matrix: reference §1.5, checked visually there with FFmpeg.
    var markerCorners: (red: Corner, green: Corner)
    var frames = 30

    enum Corner: String, Sendable { case topLeft, topRight, bottomLeft, bottomRight }

    var description: String { name }
    /// Whether the video is HEVC (an 'hvc1' track from a `.265` stream) rather than H.264.
    var isHEVC: Bool { video.hasSuffix(".265") }
    var fileName: String { name + ".mov" }
    var path: String { fixture("golden/" + fileName) }

    /// Writes the case with the project's writer, with the fixed golden creation time.
    func make() throws -> [UInt8] {
        var options = StreamMuxer.Options()
        options.orientation = orientation
        options.creationTime = goldenCreationTime
        options.audioEncoding = AudioEncoderSettings(codec: audioCodec)
        let stream = try AnnexBStream(annexB: RandomAccessFile.readAll(fixture(video)))
        let wav = try audio.map { (wav: try WAVFile(path: fixture($0)), path: fixture($0)) }
        let sink = InMemoryMovieSink()
        _ = try StreamMuxer.mux(video: stream, audio: wav, into: sink, options: options)
        return sink.bytes
    }

    static func orientation(_ angle: Double, mirrored: Bool = false) -> VideoOrientation {
        try! VideoOrientation(rotationAngle: angle, isMirrored: mirrored)
    }

    static let orientationCases: [GoldenCase] = [
        GoldenCase(name: "orientation-0", video: "testsrc-ipp.264", orientation: orientation(0),
                   exiftoolMatrix: "1 0 0 0 1 0 0 0 1", markerCorners: (.topLeft, .topRight)),
        GoldenCase(name: "orientation-90", video: "testsrc-ipp.264", orientation: orientation(90),
                   exiftoolMatrix: "0 1 0 -1 0 0 120 0 1", markerCorners: (.topRight, .bottomRight)),
        GoldenCase(name: "orientation-180", video: "testsrc-ipp.264", orientation: orientation(180),
                   exiftoolMatrix: "-1 0 0 0 -1 0 160 120 1", markerCorners: (.bottomRight, .bottomLeft)),
        GoldenCase(name: "orientation-270", video: "testsrc-ipp.264", orientation: orientation(270),
                   exiftoolMatrix: "0 -1 0 1 0 0 0 160 1", markerCorners: (.bottomLeft, .topLeft)),
        GoldenCase(name: "orientation-0-mirrored", video: "testsrc-ipp.264", orientation: orientation(0, mirrored: true),
                   exiftoolMatrix: "-1 0 0 0 1 0 160 0 1", markerCorners: (.topRight, .topLeft)),
        GoldenCase(name: "orientation-90-mirrored", video: "testsrc-ipp.264", orientation: orientation(90, mirrored: true),
                   exiftoolMatrix: "0 1 0 1 0 0 0 0 1", markerCorners: (.topLeft, .bottomLeft)),
        GoldenCase(name: "orientation-180-mirrored", video: "testsrc-ipp.264", orientation: orientation(180, mirrored: true),
                   exiftoolMatrix: "1 0 0 0 -1 0 0 120 1", markerCorners: (.bottomLeft, .bottomRight)),
        GoldenCase(name: "orientation-270-mirrored", video: "testsrc-ipp.264", orientation: orientation(270, mirrored: true),
                   exiftoolMatrix: "0 -1 0 -1 0 0 120 160 1", markerCorners: (.bottomRight, .topRight)),
    ]

    static let mediaCases: [GoldenCase] = [
        GoldenCase(name: "video-audio-48k-stereo", video: "testsrc-ipp.264", audio: "tone-48k-stereo.wav",
                   orientation: orientation(90), exiftoolMatrix: "0 1 0 -1 0 0 120 0 1", markerCorners: (.topRight, .bottomRight)),
        GoldenCase(name: "bframes", video: "testsrc-bframes.264", orientation: orientation(0),
                   exiftoolMatrix: "1 0 0 0 1 0 0 0 1", markerCorners: (.topLeft, .topRight)),
        GoldenCase(name: "audio-44k1-mono", video: "testsrc-ipp.264", audio: "tone-44k1-mono.wav",
                   orientation: orientation(0), exiftoolMatrix: "1 0 0 0 1 0 0 0 1", markerCorners: (.topLeft, .topRight)),
        GoldenCase(name: "audio-96k-stereo", video: "testsrc-bframes.264", audio: "tone-96k-stereo.wav",
                   orientation: orientation(270), exiftoolMatrix: "0 -1 0 1 0 0 0 160 1", markerCorners: (.bottomLeft, .topLeft)),
    ]

    /// AAC mono and stereo at 44.1 and 48 kHz, encoded by libavcodec 59's native encoder at
    /// its default 64 kbit/s per channel.
    static let aacCases: [GoldenCase] = [
        ("aac-48k-stereo", "tone-48k-stereo.wav"), ("aac-48k-mono", "tone-48k-mono.wav"),
        ("aac-44k1-stereo", "tone-44k1-stereo.wav"), ("aac-44k1-mono", "tone-44k1-mono.wav"),
    ].map { name, wav in
        GoldenCase(name: name, video: "testsrc-ipp.264", audio: wav, audioCodec: .aac, orientation: orientation(0),
                   exiftoolMatrix: "1 0 0 0 1 0 0 0 1", markerCorners: (.topLeft, .topRight))
    }

    /// The eight orientations again with HEVC, and HEVC with B-frames and a BT.709 VUI.
    static let hevcCases: [GoldenCase] = orientationCases.map { base in
        var hevc = base
        hevc.name = "hevc-" + base.name
        hevc.video = "testsrc-ipp.265"
        return hevc
    } + [GoldenCase(name: "hevc-bframes", video: "testsrc-bframes.265", audio: "tone-48k-stereo.wav", audioCodec: .aac,
                    orientation: orientation(90), exiftoolMatrix: "0 1 0 -1 0 0 120 0 1", markerCorners: (.topRight, .bottomRight))]

    static let all = orientationCases + mediaCases + aacCases + hevcCases
}
