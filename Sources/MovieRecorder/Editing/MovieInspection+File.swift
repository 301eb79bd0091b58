import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
extension MovieInspection {
    /// Reads the movie file at `path`.
    /// - Throws: `FileError` when it cannot be opened; `MovieFormatError` when even the
    ///   top-level atoms do not parse.
    public init(path: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        try self.init(source: file, path: path)
    }
}

extension MovieInfo {
    /// Reads the movie file at `path`: its tracks, their formats and orientation.
    /// - Throws: `FileError` when it cannot be opened; `MovieFormatError` when it is not a
    ///   movie this reader understands.
    public init(path: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        try self.init(source: file)
    }
}
