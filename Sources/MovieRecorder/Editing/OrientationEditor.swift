import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// Changes the orientation of an existing movie in place, losslessly: only the 36 matrix bytes
/// of the video track's `tkhd` are rewritten.
public enum OrientationEditor {
    /// Why a file was refused, or what failed while editing it.
    public struct EditError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The path of the movie.
        public let path: String
        /// Why the file was refused or what failed, in words a user can act on.
        public let reason: String
        /// A textual representation of the error: the path, then the reason.
        public var description: String { "\(path): cannot change the orientation: \(reason)" }
    }

    /// What an edit changed.
    public struct Edit: Sendable {
        /// The orientation before, or `nil` when the old matrix was not a plain rotation.
        public var previous: VideoOrientation?
        /// The orientation written.
        public var new: VideoOrientation
        /// The file offset of the 36 bytes that changed.
        public var matrixOffset: UInt64
        /// The track matrix before the edit.
        public var previousMatrix: TransformationMatrix
        /// The track matrix written.
        public var newMatrix: TransformationMatrix
    }

    /// Sets the orientation of the video track of the movie at `path`.
    ///
    /// The file is refused — and left untouched — when it has no finished movie atom, no
    /// video track or more than one, a movie (`mvhd`) matrix other than identity (players would
    /// combine the two), or a track matrix that scales, shears or uses perspective (replacing it
    /// would change the picture, not just its orientation).
    /// - Throws: `EditError` with the reason, `FileError` or `MovieFormatError`.
    @discardableResult
    public static func setOrientation(_ orientation: VideoOrientation, ofMovieAt path: String) throws -> Edit {
        let file = try RandomAccessFile(path: path, mode: .update)
        defer { try? file.close() }
        func refuse(_ reason: String) -> EditError { EditError(path: path, reason: reason) }
        let info: MovieInfo
        do {
            info = try MovieInfo(source: file)
        } catch let error as MovieFormatError {
            throw refuse("the file is not a finished movie this tool can read safely (\(error.message))")
        }
        guard info.tree.atoms.first(where: { $0.type == "moov" })?.child("mvex") == nil else {
            throw refuse("it is a fragmented recording that was never finished; finish it with `movrec repair` first, then set its orientation")
        }
        guard info.tree.atoms.filter({ $0.type == "moov" }).count == 1 else {
            throw refuse("the file has more than one movie atom ('moov'), so which one players use is unclear")
        }
        guard info.movieHeader.matrix == .identity else {
            throw refuse("the movie header ('mvhd') has a non-identity matrix \(info.movieHeader.matrix); players combine it with the track's, so editing the track alone would not give the requested orientation")
        }
        let videos = info.tracks.filter { $0.mediaType == "vide" }
        guard let video = videos.first else { throw refuse("it has no video track") }
        guard videos.count == 1 else {
            throw refuse("it has \(videos.count) video tracks; this tool edits files with exactly one")
        }
        let previous = video.orientation
        guard previous != nil else {
            throw refuse("the video track's matrix (\(video.header.matrix)) scales, shears or uses perspective; replacing it would change the picture, not just its orientation")
        }
        let (width, height) = (video.header.width >> 16, video.header.height >> 16)
        guard width > 0, height > 0, width <= UInt32(Int32.max >> 16), height <= UInt32(Int32.max >> 16) else {
            throw refuse("the video track's size \(width)x\(height) cannot be used for the matrix translation")
        }
        let matrix = orientation.matrix(width: Int32(width), height: Int32(height))
        let offset = video.matrixOffset
        let existing = try file.read(at: offset, count: 36)
        guard existing == video.header.matrix.bytes else {
            throw refuse("the matrix bytes at offset \(offset) do not match the parsed track header")
        }
        try file.write(matrix.bytes, at: offset)
        try file.synchronize()
        guard try file.read(at: offset, count: 36) == matrix.bytes else {
            throw refuse("reading the matrix back after writing it gave different bytes")
        }
        return Edit(previous: previous, new: orientation, matrixOffset: offset, previousMatrix: video.header.matrix,
                    newMatrix: matrix)
    }
}
