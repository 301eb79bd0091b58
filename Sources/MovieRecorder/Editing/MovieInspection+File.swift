extension MovieInspection {
    /// Reads the movie file at `path`.
    /// - Throws: ``FileError`` when it cannot be opened; ``MovieFormatError`` when even the
    ///   top-level atoms do not parse.
    public init(path: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        try self.init(source: file, path: path)
    }
}
