import MoviePlatform
import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder

/// `movrec inspect FILE [--json]`
func inspect(_ args: inout Arguments) throws -> Int32 {
    let json = args.flag("--json")
    try args.finish(positionalCount: 1...1)
    let report = try MovieInspection(path: args.positional[0])
    print(json ? report.json : report.text)
    return report.info == nil ? 1 : 0
}

/// `movrec rotate FILE --angle A [--mirror | --no-mirror]`
func rotate(_ args: inout Arguments) throws -> Int32 {
    guard let angleText = try args.option("--angle") else { throw Arguments.UsageError(description: "--angle is required") }
    let mirror = args.flag("--mirror")
    let noMirror = args.flag("--no-mirror")
    guard !(mirror && noMirror) else { throw Arguments.UsageError(description: "--mirror and --no-mirror contradict each other") }
    try args.finish(positionalCount: 1...1)
    let path = args.positional[0]
    guard let angle = Double(angleText) else { throw Arguments.UsageError(description: "--angle \(angleText) is not a number") }
    var mirrored = mirror
    if !mirror && !noMirror {
        // Keep the file's current mirroring unless told otherwise.
        mirrored = (try? MovieInfo(path: path))?.videoTrack?.orientation?.isMirrored ?? false
    }
    let orientation = try VideoOrientation(rotationAngle: angle, isMirrored: mirrored)
    let edit = try OrientationEditor.setOrientation(orientation, ofMovieAt: path)
    let before = edit.previous.map { "\($0)" } ?? "(\(edit.previousMatrix))"
    print("\(path): orientation \(before) -> \(edit.new); 36 bytes changed at offset \(edit.matrixOffset)")
    return 0
}

/// `movrec mux OUT.mov --video FILE.264 [--audio FILE.wav] [--fps N[/D]] [--rotation A] [--mirror] [--overwrite]
/// [--fragment-interval S] [--sync]`
func mux(_ args: inout Arguments) throws -> Int32 {
    guard let videoPath = try args.option("--video") else { throw Arguments.UsageError(description: "--video FILE.264 is required") }
    let audioPath = try args.option("--audio")
    let fpsText = try args.option("--fps") ?? "30"
    let rotationText = try args.option("--rotation") ?? "0"
    let fragmentText = try args.option("--fragment-interval")
    let mirror = args.flag("--mirror")
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

/// `movrec repair FILE [--output OUT] [--overwrite]`
func repair(_ args: inout Arguments) throws -> Int32 {
    let output = try args.option("--output")
    let overwrite = args.flag("--overwrite")
    try args.finish(positionalCount: 1...1)
    let report = try MovieFileRepair.repair(path: args.positional[0], outputPath: output, overwrite: overwrite)
    print("\(output ?? args.positional[0]): \(report)")
    return 0
}
