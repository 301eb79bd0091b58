import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec repair`: a cut-off recording finished into an ordinary movie.
enum RepairCommand {
    static let usage = """
        repair FILE [--output OUT] [--overwrite]
            Turn a recording cut off by a crash, a kill or a full disk into an ordinary movie,
            keeping every whole fragment, the orientation, metadata and exact durations; in place,
            or into OUT.
        """
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
