/// A movie atom whose sample-table entries are copied in when it is stored: its own bytes hold
/// an external span for each table's entries, which wait in memory or scratch storage.
struct StreamedMovieAtom {
    /// Copies one table's entries, already encoded, to the output.
    typealias TableEntries = (MovieAtomOutput) throws -> Void

    /// The atom, with an external span for each table's entries.
    var atom: ByteWriter
    /// What fills each external span, by its source number.
    var tables: [TableEntries]
    /// The movie's duration in movie ticks.
    var duration: UInt64

    /// Writes the atom at `offset`: its own bytes and the tables' entries (from memory and
    /// scratch storage) gathered into writes of up to 256 KiB, never the whole atom at once.
    /// - Parameter tableBlockSize: the size of a table block in scratch storage; a write holds at
    ///   least one.
    func store(to output: MovieSinkWriter, at offset: UInt64, tableBlockSize: Int) throws {
        let capacity = max(tableBlockSize, 16, min(atom.count, 1 << 18))
        let buffer = MovieAtomOutput(capacity: capacity, at: offset) { bytes, position in
            try output.store(bytes, at: position, step: "writing the movie atom")
        }
        var index = 0
        try atom.bytes.withUnsafeBytes { bytes in
            for span in atom.externalSpans {
                try buffer.append(UnsafeRawBufferPointer(rebasing: bytes[index..<span.insertionIndex]))
                index = span.insertionIndex
                let before = buffer.count
                try tables[span.source](buffer)
                guard buffer.count - before == span.count else {
                    throw MovieWriterError(.invalidState,
                        "writing the movie atom: a sample table gave \(buffer.count - before) bytes where \(span.count) were reserved")
                }
            }
            try buffer.append(UnsafeRawBufferPointer(rebasing: bytes[index...]))
        }
        try buffer.flush()
    }
}
