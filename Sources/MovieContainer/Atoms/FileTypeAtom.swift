/// `ftyp`: the brands a file conforms to (QuickTime File Format, "File Type Compatibility Atom").
/// A QuickTime movie has major brand `qt  ` and lists `qt  ` as compatible.
package struct FileTypeAtom: QuickTimeAtom {
    package static let type: FourCC = "ftyp"
    package var majorBrand: FourCC
    package var minorVersion: UInt32
    package var compatibleBrands: [FourCC]

    /// What Apple's capture writes: `qt  `, version 0, compatible `qt  `.
    package static let quickTime = FileTypeAtom(majorBrand: "qt  ", minorVersion: 0, compatibleBrands: ["qt  "])

    package init(majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    package func writeBody(to w: inout ByteWriter) {
        w.write(majorBrand)
        w.write(minorVersion)
        for brand in compatibleBrands { w.write(brand) }
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        majorBrand = try r.readFourCC()
        minorVersion = try r.readUInt32()
        compatibleBrands = []
        while r.remaining >= 4 { compatibleBrands.append(try r.readFourCC()) }
    }
}
