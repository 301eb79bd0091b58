/// `stsd`: the sample descriptions of a track (QuickTime File Format, "Sample Description
/// Atoms"). Entries are kept as their format code and body; ``VideoSampleEntry`` and
/// ``SoundSampleEntry`` read and write the bodies of the kinds this library handles.
package struct SampleDescriptionAtom: QuickTimeAtom {
    package static let type: FourCC = "stsd"

    package struct Entry: Hashable, Sendable {
        /// The data format, such as `avc1`, `sowt` or `lpcm`.
        package var format: FourCC
        /// Everything after the entry's size and format.
        package var body: [UInt8]

        package init(format: FourCC, body: [UInt8]) {
            self.format = format
            self.body = body
        }
    }

    package var entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(UInt32(entries.count))
        for entry in entries {
            w.write(UInt32(8 + entry.body.count))
            w.write(entry.format)
            w.write(contentsOf: entry.body)
        }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        let count = try r.readUInt32()
        try r.requireTable(count: count, entrySize: 16)
        entries = []
        for _ in 0..<count {
            let size = Int(try r.readUInt32())
            let format = try r.readFourCC()
            guard size >= 16, size - 8 <= r.remaining else {
                throw .invalidValue("stsd", "sample description '\(format)' has size \(size), which does not fit the atom")
            }
            entries.append(Entry(format: format, body: try r.readBytes(size - 8)))
        }
    }
}

/// Reads the extension atoms that follow a sample description's fixed fields.
func readExtensionAtoms(_ r: inout ByteReader) -> [(type: FourCC, body: [UInt8])] {
    var result: [(FourCC, [UInt8])] = []
    while r.remaining >= 8 {
        guard let size = try? r.readUInt32(), let type = try? r.readFourCC(),
              size >= 8, Int(size) - 8 <= r.remaining, let body = try? r.readBytes(Int(size) - 8)
        else { break }
        result.append((type, body))
    }
    return result
}

/// A video sample description: `avc1` and other codecs (QuickTime File Format, "Video Sample
/// Description").
package struct VideoSampleEntry: Hashable, Sendable {
    package var format: FourCC
    package var width: UInt16
    package var height: UInt16
    /// Shown by readers as the encoder; Apple writes "H.264".
    package var compressorName: String
    /// Extension atoms in order, such as `avcC`, `pasp` and `colr`.
    package var extensions: [Extension]

    package struct Extension: Hashable, Sendable {
        package var type: FourCC
        package var body: [UInt8]
        package init(type: FourCC, body: [UInt8]) {
            self.type = type
            self.body = body
        }
    }

    package init(format: FourCC, width: UInt16, height: UInt16, compressorName: String, extensions: [Extension]) {
        self.format = format
        self.width = width
        self.height = height
        self.compressorName = compressorName
        self.extensions = extensions
    }

    /// The entry for H.264 with its `avcC`, a `pasp` when the pixels are not square or a
    /// sample aspect ratio is known, and a `colr` 'nclc' when the colours are described.
    package init(h264 configuration: AVCDecoderConfiguration, width: UInt16, height: UInt16,
                pixelAspectRatio: SampleAspectRatio? = nil, color: ColorDescription? = nil) {
        let extensions = [Extension(type: "avcC", body: configuration.atomBody)]
            + Self.pictureExtensions(aspectRatio: pixelAspectRatio ?? configuration.sps.sampleAspectRatio,
                                     color: color ?? configuration.sps.colorDescription)
        self.init(format: "avc1", width: width, height: height, compressorName: "H.264", extensions: extensions)
    }

    /// The entry for HEVC as Apple writes it: 'hvc1', whose parameter sets live only in its
    /// complete `hvcC`, then `pasp` and `colr` as for H.264.
    package init(hevc configuration: HEVCDecoderConfiguration, width: UInt16, height: UInt16,
                pixelAspectRatio: SampleAspectRatio? = nil, color: ColorDescription? = nil) {
        let extensions = [Extension(type: "hvcC", body: configuration.atomBody)]
            + Self.pictureExtensions(aspectRatio: pixelAspectRatio ?? configuration.sps.sampleAspectRatio,
                                     color: color ?? configuration.sps.colorDescription)
        self.init(format: "hvc1", width: width, height: height, compressorName: "HEVC", extensions: extensions)
    }

    /// A `pasp` when a sample aspect ratio is known and a `colr` when the colours are described.
    private static func pictureExtensions(aspectRatio: SampleAspectRatio?, color: ColorDescription?) -> [Extension] {
        var extensions: [Extension] = []
        if let ratio = aspectRatio {
            extensions.append(Extension(type: "pasp", body: PixelAspectRatioAtom(
                horizontalSpacing: ratio.horizontal, verticalSpacing: ratio.vertical).bodyBytes))
        }
        if let color {
            extensions.append(Extension(type: "colr", body: ColorParameterAtom(color).bodyBytes))
        }
        return extensions
    }

    package var descriptionEntry: SampleDescriptionAtom.Entry {
        var w = ByteWriter(capacity: 128)
        w.writeZeros(6)
        w.write(UInt16(1))  // data reference index
        w.write(UInt16(0))  // version
        w.write(UInt16(0))  // revision level
        w.write(UInt32(0))  // vendor
        w.write(UInt32(0x200))  // temporal quality: normal
        w.write(UInt32(0x200))  // spatial quality: normal
        w.write(width)
        w.write(height)
        w.write(UInt32(0x0048_0000))  // 72 dpi
        w.write(UInt32(0x0048_0000))
        w.write(UInt32(0))  // data size
        w.write(UInt16(1))  // frame count
        w.writePascalString(compressorName, fieldSize: 32)
        w.write(UInt16(24))  // depth
        w.write(Int16(-1))  // color table ID: none
        for e in extensions {
            w.write(UInt32(8 + e.body.count))
            w.write(e.type)
            w.write(contentsOf: e.body)
        }
        return .init(format: format, body: w.bytes)
    }

    package init(_ entry: SampleDescriptionAtom.Entry) throws(MovieFormatError) {
        var r = ByteReader(entry.body, context: entry.format)
        try r.skip(6 + 2 + 2 + 2 + 4 + 4 + 4)
        format = entry.format
        width = try r.readUInt16()
        height = try r.readUInt16()
        try r.skip(4 + 4 + 4 + 2)
        var name = try r.subReader(32, context: entry.format)
        compressorName = (try? name.readPascalString()) ?? ""
        try r.skip(4)
        extensions = readExtensionAtoms(&r).map { Extension(type: $0.type, body: $0.body) }
    }
}

/// `pasp`: pixel aspect ratio (QuickTime File Format, "Pixel Aspect Ratio").
package struct PixelAspectRatioAtom: QuickTimeAtom {
    package static let type: FourCC = "pasp"
    package var horizontalSpacing: UInt32
    package var verticalSpacing: UInt32

    package init(horizontalSpacing: UInt32, verticalSpacing: UInt32) {
        self.horizontalSpacing = horizontalSpacing
        self.verticalSpacing = verticalSpacing
    }

    package func writeBody(to w: inout ByteWriter) {
        w.write(horizontalSpacing)
        w.write(verticalSpacing)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        horizontalSpacing = try r.readUInt32()
        verticalSpacing = try r.readUInt32()
    }
}

/// `colr` of type 'nclc': colour primaries, transfer function and matrix (QuickTime File
/// Format, "Color Parameter Atoms"; Apple TN2162). Full-range samples, which 'nclc' cannot
/// express, get the ISO form 'nclx' with its full-range bit (ISO/IEC 14496-12 12.1.5), which
/// FFmpeg reads in a QuickTime movie too; the stream's VUI says the same.
package struct ColorParameterAtom: QuickTimeAtom {
    package static let type: FourCC = "colr"
    package var color: ColorDescription

    package init(_ color: ColorDescription) { self.color = color }

    package func writeBody(to w: inout ByteWriter) {
        w.write((color.isFullRange ? "nclx" : "nclc") as FourCC)
        w.write(color.primaries)
        w.write(color.transferFunction)
        w.write(color.matrix)
        if color.isFullRange { w.write(UInt8(0x80)) }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let kind = try r.readFourCC()
        guard kind == "nclc" || kind == "nclx" else { throw .invalidValue("colr", "colour parameter type '\(kind)' is not nclc or nclx") }
        color = ColorDescription(primaries: try r.readUInt16(), transferFunction: try r.readUInt16(), matrix: try r.readUInt16())
        if kind == "nclx", r.remaining >= 1 { color.isFullRange = (try r.readUInt8()) & 0x80 != 0 }
    }
}

extension QuickTimeAtom {
    /// The atom's body: the bytes after size and type.
    var bodyBytes: [UInt8] {
        var w = ByteWriter()
        writeBody(to: &w)
        return w.bytes
    }
}
