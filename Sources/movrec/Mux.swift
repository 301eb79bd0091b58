import MoviePlatform
import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec mux`: an H.264 or HEVC stream and a WAV file into a movie without re-encoding.
enum MuxCommand {
    static let usage = """
        mux OUT.mov --video FILE.264|FILE.265 [--audio FILE.wav] [--fps N[/D]] [--rotation A] [--mirror] [--overwrite]
            [--fragment-interval S] [--sync] [--audio-codec lpcm|aac] [--audio-bitrate KBITS]
            Write an H.264 or HEVC Annex-B stream (and a PCM WAV file) into a QuickTime movie
            without re-encoding the video ('avc1', or 'hvc1' with every parameter set in its
            hvcC), with the given orientation in the track matrix. The WAV's PCM
            goes in as it is, or with --audio-codec aac is encoded to AAC (default 128 kbit/s for
            stereo, 64 for mono). --fragment-interval
            writes a movie fragment every S seconds, as a recording does, and finishes the file
            into an ordinary movie. --sync flushes the movie (and each fragment) to the disk
            before exiting; by default, like cp, the kernel writes it back in its own time.
        """
}

/// `movrec mux OUT.mov --video FILE.264|FILE.265 [--audio FILE.wav] [--fps N[/D]] [--rotation A] [--mirror] [--overwrite]
/// [--fragment-interval S] [--sync] [--audio-codec lpcm|aac] [--audio-bitrate KBITS]`
func mux(_ args: inout Arguments) throws -> Int32 {
    guard let videoPath = try args.option("--video") else { throw Arguments.UsageError(description: "--video FILE.264 or FILE.265 is required") }
    let audioPath = try args.option("--audio")
    let fpsText = try args.option("--fps") ?? "30"
    let rotationText = try args.option("--rotation") ?? "0"
    let fragmentText = try args.option("--fragment-interval")
    let mirror = args.flag("--mirror")
    let audioCodecText = try args.option("--audio-codec")
    let audioBitrateText = try args.option("--audio-bitrate")
    var options = StreamMuxer.Options()
    options.overwrite = args.flag("--overwrite")
    options.synchronizesToDisk = args.flag("--sync")
    try args.finish(positionalCount: 1...1)
    if let fragmentText {
        guard let seconds = Double(fragmentText), seconds > 0, seconds <= 86_400 else {
            throw Arguments.UsageError(description: "--fragment-interval \(fragmentText) is not a positive number of seconds")
        }
        options.fragmentInterval = .nanoseconds(Int64(seconds * 1e9))
    }
    options.frameRate = try parseFrameRate(fpsText)
    options.audioEncoding = try RecordOptions.audioEncoding(codec: audioCodecText, bitrate: audioBitrateText, defaultCodec: .lpcm)
    guard let angle = Double(rotationText) else { throw Arguments.UsageError(description: "--rotation \(rotationText) is not a number") }
    options.orientation = try VideoOrientation(rotationAngle: angle, isMirrored: mirror)
    // The inputs are mapped while the output is written: writing over one of them would cut
    // it short under the mapping.
    for input in [videoPath] + (audioPath.map { [$0] } ?? []) where RandomAccessFile.isSameFile(input, args.positional[0]) {
        throw Arguments.UsageError(description: "the output \(args.positional[0]) is the input \(input); write the movie to another path")
    }
    let audio = try audioPath.map { (wav: try WAVFile(path: $0), path: $0) }
    let result = try StreamMuxer.mux(videoFile: videoPath, audio: audio, to: args.positional[0], options: options)
    let summary = result.summary
    let seconds = Double(summary.duration) / Double(summary.movieTimescale)
    print("\(args.positional[0]): \(result.videoFrameCount) frames\(audio == nil ? "" : " and audio"), \(seconds) s, \(summary.fileSize) bytes, orientation \(options.orientation)")
    return 0
}

func parseFrameRate(_ text: String) throws -> FrameRate {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count <= 2, let frames = UInt32(parts[0]), frames > 0,
          let seconds = parts.count == 2 ? UInt32(parts[1]) : 1, seconds > 0 else {
        throw Arguments.UsageError(description: "--fps \(text) is not a rate such as 30 or 30000/1001")
    }
    return FrameRate(frames: frames, seconds: seconds)
}
