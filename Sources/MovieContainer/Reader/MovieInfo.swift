

/// What a movie file holds, read from its `moov`: the movie header and a summary of every
/// track, including the orientation a player will show.
public struct MovieInfo: Sendable {
    /// The `ftyp` atom, when the file has one.
    package var fileType: FileTypeAtom?
    package var movieHeader: MovieHeaderAtom
    /// A summary of every track, in the order of the `trak` atoms.
    public var tracks: [TrackInfo]
    /// A Boolean value that indicates whether the movie declares fragments (`mvex`).
    public var isFragmented: Bool
    /// The movie's `mdta` metadata: from `moov/meta`, then from a `moov/udta/meta` with an
    /// `mdta` handler (where older FFmpeg put it). Metadata atoms of other handlers, such as
    /// iTunes' `mdir`, are not read.
    public var metadata: [MetadataItem]
    /// Why metadata could not be read, when a `meta` atom is malformed. Metadata never stops the
    /// rest of the movie from being read (or its orientation from being edited).
    public var metadataProblem: String?
    /// The atom tree the summary was read from.
    package var tree: AtomTree

    /// The movie's duration in seconds.
    public var durationSeconds: Double {
        movieHeader.timescale == 0 ? 0 : Double(movieHeader.duration) / Double(movieHeader.timescale)
    }

    /// The first video track.
    public var videoTrack: TrackInfo? { tracks.first { $0.mediaType == "vide" } }

    /// Reads the movie in `source`.
    /// - Throws: ``MovieFormatError`` when the file has no complete `moov`, or an atom in it
    ///   does not parse.
    public init(source: any MovieByteSource) throws {
        try self.init(tree: AtomTree(source: source))
    }

    package init(tree: AtomTree) throws(MovieFormatError) {
        self.tree = tree
        fileType = try tree.atom("ftyp").flatMap { node throws(MovieFormatError) in
            node.body == nil ? nil : try node.decode(FileTypeAtom.self)
        }
        guard let moov = tree.atom("moov") else {
            throw MovieFormatError(code: .missingAtom, atom: "moov",
                message: "the file has no movie atom ('moov'): it was not finished; if it was recorded with fragments, `movrec repair` can recover it")
        }
        guard !moov.isTruncated else {
            throw MovieFormatError(code: .truncatedAtom, atom: "moov",
                message: "the movie atom ('moov') at offset \(moov.offset) claims \(moov.size) bytes but the file ends at \(tree.fileSize)")
        }
        guard let mvhd = moov.child("mvhd") else { throw .missingAtom("mvhd", in: "the movie atom") }
        movieHeader = try mvhd.decode(MovieHeaderAtom.self)
        isFragmented = moov.child("mvex") != nil
        tracks = []
        for trak in moov.children("trak") { tracks.append(try TrackInfo(trak: trak)) }
        metadata = []
        metadataProblem = nil
        for meta in moov.children("meta") + (moov.child("udta")?.children("meta") ?? []) {
            do throws(MovieFormatError) {
                guard let hdlr = meta.child("hdlr"), try hdlr.decode(HandlerAtom.self).componentSubtype == "mdta" else { continue }
                metadata += try meta.decode(MetadataAtom.self).items
            } catch {
                metadataProblem = error.message
            }
        }
    }
}
