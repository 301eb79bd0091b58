import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// `movrec inspect`: the atom tree and each track, as text or JSON; the timed metadata's
/// samples; the location track as GPX.
enum InspectCommand {
    static let usage = """
        inspect FILE [--json | --metadata | --gpx] [--raw]
            Print the atom tree with offsets and sizes, and each track's codec, size, duration
            and the orientation players will show. --metadata prints every timed metadata
            sample with its time; --gpx prints the location track as a GPX 1.1 track. A file
            that is not a QuickTime or MP4 movie is an error (exit 1); --raw prints how its
            bytes parse as atoms anyway.
        """
}

/// `movrec inspect FILE [--json | --metadata | --gpx] [--raw]`
func inspect(_ args: inout Arguments) throws -> Int32 {
    let json = args.flag("--json"), metadata = args.flag("--metadata"), gpx = args.flag("--gpx"), raw = args.flag("--raw")
    try args.finish(positionalCount: 1...1)
    let path = args.positional[0]
    guard metadata || gpx else {
        let report = try MovieInspection(path: path)
        guard report.isMovie || raw else {
            standardError("movrec: inspect: \(path) is not a QuickTime or MP4 movie: it does not begin with a movie's atoms "
                + "(ftyp, moov, mdat, wide, free…). `movrec inspect --raw \(path)` shows how its bytes parse as atoms anyway")
            return 1
        }
        print(json ? report.json : report.text)
        return report.info == nil ? 1 : 0
    }
    let file = try RandomAccessFile(path: path, mode: .read)
    defer { try? file.close() }
    let info = try MovieInfo(source: file)
    if gpx {
        guard let track = info.metadataTracks.first(where: { $0.metadataKeys?.contains(.locationISO6709) == true }) else {
            standardError("movrec: inspect: \(path) has no timed location track; record with a location source to make one")
            return 1
        }
        let samples = try info.timedMetadataSamples(of: track, in: file)
        print(GPXDocument(samples: samples, creationTime: info.movieHeader.creationTime).xml, terminator: "")
        return 0
    }
    for track in info.metadataTracks {
        let keys = track.metadataKeys ?? []
        print("track \(track.trackID): timed metadata, keys " + keys.map { "\($0.identifier) (\($0.dataType))" }.joined(separator: ", ")
              + (track.describedTrackIDs.isEmpty ? "" : ", describes track " + track.describedTrackIDs.map(String.init).joined(separator: ", ")))
        for sample in try info.timedMetadataSamples(of: track, in: file) {
            let values = sample.items.isEmpty ? "(no value)" : sample.items.map { "\($0.key.identifier) = \(describe($0.value))" }.joined(separator: ", ")
            print("  \(MovieInspection.seconds(sample.time)) s +\(MovieInspection.seconds(sample.duration)) s: \(values)")
        }
    }
    return 0
}

/// A metadata value as text.
private func describe(_ value: MetadataItem.Value) -> String {
    switch value {
    case .string(let text): text
    case .int(let n): String(n)
    case .double(let x): String(x)
    case .other(let type, let bytes): "\(bytes.count) bytes of type \(type)"
    }
}
