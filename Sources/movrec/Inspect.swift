import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec inspect`: the atom tree and each track, as text or JSON.
enum InspectCommand {
    static let usage = """
        inspect FILE [--json]
            Print the atom tree with offsets and sizes, and each track's codec, size, duration
            and the orientation players will show.
        """
}

/// `movrec inspect FILE [--json]`
func inspect(_ args: inout Arguments) throws -> Int32 {
    let json = args.flag("--json")
    try args.finish(positionalCount: 1...1)
    let report = try MovieInspection(path: args.positional[0])
    print(json ? report.json : report.text)
    return report.info == nil ? 1 : 0
}
