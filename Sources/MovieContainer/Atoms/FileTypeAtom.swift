/// `ftyp`: the brands a file conforms to (QuickTime File Format, "File Type Compatibility Atom").
/// A QuickTime movie has major brand `qt  ` and lists `qt  ` as compatible.
public struct FileTypeAtom: QuickTimeAtom {
    public static let type: FourCC = "ftyp"
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]

    /// What Apple's capture writes: `qt  `, version 0, compatible `qt  `.
    public static let quickTime = FileTypeAtom(majorBrand: "qt  ", minorVersion: 0, compatibleBrands: ["qt  "])

    public init(majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    public func writeBody(to w: inout ByteWriter) {
        w.write(majorBrand)
        w.write(minorVersion)
        for brand in compatibleBrands { w.write(brand) }
    }

    public init(body r: inout ByteReader) throws(MovieFormatError) {
        majorBrand = try r.readFourCC()
        minorVersion = try r.readUInt32()
        compatibleBrands = []
        while r.remaining >= 4 { compatibleBrands.append(try r.readFourCC()) }
    }
}
