import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec rotate`: a new orientation written into the track matrix in place.
enum RotateCommand {
    static let usage = """
        rotate FILE --angle A [--mirror | --no-mirror]
            Set the orientation of a .mov/.mp4 in place, losslessly: only the 36 matrix bytes of
            the video track header change. A is 0, 90, 180 or 270 degrees clockwise. Without
            --mirror/--no-mirror the file's current mirroring is kept.
        """
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
