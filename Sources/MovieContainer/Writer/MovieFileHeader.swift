/// The start of a movie file as ``MovieWriter`` lays it out, and the `mdat` header that
/// finishing writes over it.
///
/// The file starts `ftyp` (`qt  `) and `wide`. A classic movie continues with an `mdat` of size
/// 0 ("to the end of the file") until it is finished; a fragmented one with a movie atom that
/// declares fragments, and the fragments after it. Finishing sets the `mdat`'s 32-bit size, or
/// writes a 64-bit `mdat` header over `wide` that turns everything up to the final movie atom
/// into media data.
enum MovieFileHeader {
    /// The offset of the `mdat` header's size field; `wide` sits just before it.
    static let mdatHeaderOffset: UInt64 = 28

    /// The file's first bytes: `ftyp`, `wide`, then `fragmentHeader` (the movie atom of a
    /// fragmented file) or an open `mdat` header.
    /// - Throws: ``MovieFormatError`` for an atom past 4 GiB.
    static func bytes(fragmentHeader: ByteWriter?) throws -> [UInt8] {
        var header = ByteWriter(capacity: 36)
        try FileTypeAtom.quickTime.write(to: &header)
        header.write(UInt32(8))
        header.write("wide" as FourCC)
        if let fragmentHeader {
            precondition(fragmentHeader.externalSpans.isEmpty, "the first movie atom has no table entries")
            header.write(contentsOf: fragmentHeader.bytes)
        } else {
            header.write(UInt32(0))  // mdat size: "to the end of the file" until finished
            header.write("mdat" as FourCC)
        }
        return header.bytes
    }

    /// What finishing writes once the media ends at `mediaEnd`: the 32-bit `mdat` size when it
    /// fits and the file has no fragments; otherwise a 64-bit `mdat` header over `wide` (and,
    /// with fragments, the first movie atom's header), which turns everything up to `mediaEnd`
    /// — fragment headers included — into media data.
    static func mediaDataSize(mediaEnd: UInt64, isFragmented: Bool) -> (bytes: [UInt8], offset: UInt64, step: String) {
        let mdatSize = mediaEnd - mdatHeaderOffset
        if mdatSize <= UInt64(UInt32.max) && !isFragmented {
            var size = ByteWriter(capacity: 4)
            size.write(UInt32(mdatSize))
            return (size.bytes, mdatHeaderOffset, "setting the mdat size")
        }
        var header = ByteWriter(capacity: 16)
        header.write(UInt32(1))
        header.write("mdat" as FourCC)
        header.write(mediaEnd - (mdatHeaderOffset - 8))
        return (header.bytes, mdatHeaderOffset - 8, "setting the 64-bit mdat size")
    }
}
