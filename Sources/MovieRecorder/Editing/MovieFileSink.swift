import MovieContainer
import MoviePlatform

/// A movie file on disk for a `MovieWriter` to write into: the way to write movies directly,
/// from samples an application already has.
///
/// ```swift
/// let file = try MovieFileSink(path: "out.mov", overwrite: true)
/// let writer = MovieWriter(sink: file, configuration: MovieWriter.Configuration())
/// // add tracks, append samples …
/// _ = try writer.finish()
/// try file.close()
/// ```
///
/// Writes go to the file by absolute offset (`pwrite`, `pwritev`); ``synchronize()`` is
/// `fdatasync`. Close the file with ``close()`` when the writer has finished; a file left open
/// is closed when the sink is released.
public final class MovieFileSink: MovieByteSink {
    private let file: RandomAccessFile

    /// Creates the file at `path` for writing.
    /// - Parameters:
    ///   - path: Where the movie goes.
    ///   - overwrite: `true` to replace an existing file; `false` to refuse it.
    /// - Throws: `FileError` naming the path: it exists and `overwrite` is `false`
    ///   (`FileError.Code.alreadyExists`), its directory is missing, or it cannot be written.
    public init(path: String, overwrite: Bool = false) throws {
        file = try RandomAccessFile(path: path, mode: overwrite ? .createOrTruncate : .createNew)
    }

    /// Writes `bytes` at `offset`.
    /// - Throws: `FileError`, such as `FileError.Code.noSpace` on a full disk.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try file.write(bytes, at: offset)
    }

    /// Writes `buffers` one after another from `offset`, in as few system calls as it can.
    /// - Throws: `FileError`, such as `FileError.Code.noSpace` on a full disk.
    public func write(gathering buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        try file.write(gathering: buffers, at: offset)
    }

    /// Makes everything written so far durable (`fdatasync`).
    /// - Throws: `FileError` when the storage reports an error.
    public func synchronize() throws { try file.synchronize() }

    /// Cuts the file to `size` bytes.
    /// - Throws: `FileError` when the file cannot be truncated.
    public func truncate(to size: UInt64) throws { try file.truncate(to: size) }

    /// A scratch file beside the movie for sample tables that outgrow memory in long recordings.
    /// - Throws: `FileError` when the scratch file cannot be created.
    public func makeScratchStorage() throws -> (any MovieScratchStorage)? { try file.makeScratchStorage() }

    /// Closes the file.
    /// - Throws: `FileError` when the system reports an error closing it.
    public func close() throws { try file.close() }
}
