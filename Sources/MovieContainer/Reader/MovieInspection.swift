/// A report of a movie file's structure: the atom tree with offsets and sizes, and per track
/// the codec, size, duration, sample count and the orientation a player will show.
public struct MovieInspection: Sendable {
    /// The name the report gives the file, as passed to ``MovieInspection/init(source:path:)``.
    public var path: String
    package var tree: AtomTree
    /// The movie summary, or `nil` when the file has no readable movie atom.
    public var info: MovieInfo?
    /// Why there is no summary.
    public var problem: String?

    /// Reads the movie in `source`, named `path` in the report.
    /// - Throws: ``MovieFormatError`` when even the top-level atoms do not parse, or the
    ///   source's own errors.
    public init(source: any MovieByteSource, path: String) throws {
        self.path = path
        tree = try AtomTree(source: source)
        do {
            info = try MovieInfo(tree: tree)
        } catch {
            info = nil
            problem = error.message
        }
    }

    /// The top-level atoms a QuickTime or ISO base media file begins with.
    static let leadingAtomTypes: Set<FourCC> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "moof", "styp", "sidx", "junk", "pdin", "meta"]

    /// A Boolean value that indicates whether the file is a movie at all: it has a readable
    /// movie atom, or begins with an atom a QuickTime or MP4 file begins with (a damaged or
    /// unfinished movie). A text file or a picture is not.
    public var isMovie: Bool {
        info != nil || tree.atoms.first.map { Self.leadingAtomTypes.contains($0.type) } == true
    }

    /// The report as text.
    public var text: String {
        var lines = ["\(path): \(tree.fileSize) bytes"]
        lines.append("atoms (offset, size):")
        func walk(_ node: AtomNode, depth: Int) {
            let indent = String(repeating: "  ", count: depth + 1)
            var line = "\(indent)\(node.type) @\(node.offset) size \(node.size)"
            if node.headerSize == 16 { line += " (64-bit size)" }
            if node.isTruncated { line += " TRUNCATED: the file ends at \(tree.fileSize)" }
            lines.append(line)
            for child in node.children { walk(child, depth: depth + 1) }
        }
        for atom in tree.atoms { walk(atom, depth: 0) }
        guard let info else {
            lines.append("no movie summary: \(problem ?? "unknown")")
            return lines.joined(separator: "\n")
        }
        lines.append("movie: \(Self.seconds(info.durationSeconds)) s, time scale \(info.movieHeader.timescale)"
            + (info.isFragmented ? ", fragmented" : ""))
        for track in info.tracks {
            var line = "track \(track.trackID): \(Self.kind(track.mediaType)) \(track.codec.map { "'\($0)'" } ?? "(no sample description)")"
            if track.mediaType == "vide" { line += " \(track.videoEntry.map { "\($0.width)x\($0.height)" } ?? "\(track.width)x\(track.height)")" }
            if let pcm = track.pcmFormat { line += " \(pcm)" }
            if let aac = track.aacFormat { line += " \(aac), encoder delay \(aac.primingFrames) frames" }
            line += ", \(Self.seconds(track.mediaDurationSeconds)) s, \(track.sampleCount) samples, time scale \(track.mediaHeader.timescale)"
            lines.append(line)
            if track.mediaType == "vide" {
                if let codec = track.codecString, let profile = track.profileDescription {
                    lines.append("  codec: \(codec) (\(profile))")
                }
                if let flags = track.sampleTable?.dependencies?.flags {
                    let independent = flags.filter { $0 >> 4 & 3 == 2 }.count, disposable = flags.filter { $0 >> 2 & 3 == 2 }.count
                    lines.append("  sample dependencies (sdtp): \(independent) independent, \(disposable) disposable, of \(flags.count)")
                }
                lines.append("  matrix: \(track.header.matrix)")
                lines.append("  orientation: " + Self.orientationText(track.orientation))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func orientationText(_ orientation: VideoOrientation?) -> String {
        guard let o = orientation else { return "not a plain rotation (the matrix scales or shears)" }
        let turn = o.rotationAngle == 0 ? "no rotation" : "rotated \(o.rotationAngle)° clockwise"
        return "\(turn)\(o.isMirrored ? ", then mirrored left to right" : ""); ffprobe shows rotation \(o.ffprobeRotation), mediainfo and exiftool \(o.displayedClockwiseAngle)"
    }

    static func kind(_ type: FourCC) -> String {
        switch type {
        case "vide": "video"
        case "soun": "audio"
        default: "'\(type)'"
        }
    }

    package static func seconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 9e15 else { return String(value) }
        let millis = Int64((value * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// The report as JSON.
    public var json: String {
        func atom(_ node: AtomNode) -> JSONValue {
            var fields: [(String, JSONValue)] = [("type", .string(node.type.description)), ("offset", .number(Double(node.offset))),
                                                 ("size", .number(Double(node.size)))]
            if node.isTruncated { fields.append(("truncated", .bool(true))) }
            if !node.children.isEmpty { fields.append(("children", .array(node.children.map(atom)))) }
            return .object(fields)
        }
        var root: [(String, JSONValue)] = [("path", .string(path)), ("fileSize", .number(Double(tree.fileSize))),
                                           ("atoms", .array(tree.atoms.map(atom)))]
        if let info {
            root.append(("durationSeconds", .number(info.durationSeconds)))
            root.append(("movieTimescale", .number(Double(info.movieHeader.timescale))))
            root.append(("fragmented", .bool(info.isFragmented)))
            root.append(("tracks", .array(info.tracks.map { track in
                var fields: [(String, JSONValue)] = [
                    ("trackID", .number(Double(track.trackID))), ("mediaType", .string(track.mediaType.description)),
                    ("codec", track.codec.map { .string($0.description) } ?? .null),
                    ("timescale", .number(Double(track.mediaHeader.timescale))),
                    ("durationSeconds", .number(track.mediaDurationSeconds)), ("sampleCount", .number(Double(track.sampleCount))),
                ]
                if track.mediaType == "vide" {
                    fields.append(("width", .number(Double(track.videoEntry?.width ?? UInt16(track.width)))))
                    fields.append(("height", .number(Double(track.videoEntry?.height ?? UInt16(track.height)))))
                    if let codec = track.codecString { fields.append(("codecString", .string(codec))) }
                    if let profile = track.profileDescription { fields.append(("profile", .string(profile))) }
                    fields.append(("matrix", .array(track.header.matrix.values.map { .number(Double($0)) })))
                    if let o = track.orientation {
                        fields.append(("rotation", .number(Double(o.rotationAngle))))
                        fields.append(("mirrored", .bool(o.isMirrored)))
                        fields.append(("ffprobeRotation", .number(Double(o.ffprobeRotation))))
                        fields.append(("exifOrientation", .number(Double(o.exifOrientation))))
                    } else {
                        fields.append(("rotation", .null))
                    }
                }
                if let pcm = track.pcmFormat {
                    fields.append(("sampleRate", .number(Double(pcm.sampleRate))))
                    fields.append(("channels", .number(Double(pcm.channelCount))))
                    fields.append(("bitsPerChannel", .number(Double(pcm.bitsPerChannel))))
                }
                if let aac = track.aacFormat {
                    fields.append(("sampleRate", .number(Double(aac.sampleRate))))
                    fields.append(("channels", .number(Double(aac.channelCount))))
                    fields.append(("audioObjectType", .number(Double(aac.objectType))))
                    fields.append(("bitRate", .number(Double(aac.averageBitRate))))
                    fields.append(("primingFrames", .number(Double(aac.primingFrames))))
                }
                return .object(fields)
            })))
        } else {
            root.append(("problem", .string(problem ?? "")))
        }
        return JSONValue.object(root).serialized
    }
}

/// A minimal JSON value with a serializer, so the CLI needs no Foundation.
enum JSONValue {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    var serialized: String {
        switch self {
        case .string(let s): return Self.quote(s)
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
            return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map(\.serialized).joined(separator: ",") + "]"
        case .object(let fields): return "{" + fields.map { Self.quote($0.0) + ":" + $0.1.serialized }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
