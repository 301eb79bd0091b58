/// The 3×3 matrix QuickTime stores in `mvhd` and `tkhd` to map a track's pixels onto the display.
///
/// The nine 32-bit values are stored in the order a, b, u, c, d, v, x, y, w
/// (QuickTime File Format, "Matrices"). a, b, c, d, x and y are 16.16 fixed point; u, v and w
/// are 2.30 fixed point. A point (x, y) maps to (a·x + c·y + tx, b·x + d·y + ty).
public struct TransformationMatrix: Hashable, Sendable, CustomStringConvertible {
    /// The raw values in file order: a, b, u, c, d, v, x, y, w.
    public var values: [Int32]

    /// 1.0 in 16.16 fixed point.
    public static let one16: Int32 = 0x0001_0000
    /// 1.0 in 2.30 fixed point.
    public static let one30: Int32 = 0x4000_0000

    /// The identity matrix, which Apple writes in `mvhd` and for unrotated tracks.
    public static let identity = TransformationMatrix(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// Creates a matrix from whole-number terms: a–d in units of 1.0, translations in pixels.
    public init(a: Int32, b: Int32, c: Int32, d: Int32, tx: Int32, ty: Int32) {
        values = [a * Self.one16, b * Self.one16, 0, c * Self.one16, d * Self.one16, 0,
                  tx &* Self.one16, ty &* Self.one16, Self.one30]
    }

    /// Creates a matrix from the nine raw values in file order.
    public init?(rawValues: [Int32]) {
        guard rawValues.count == 9 else { return nil }
        values = rawValues
    }

    /// The a term, in 16.16 fixed point: how much a point's x adds to its displayed x.
    public var a: Int32 { values[0] }
    /// The b term, in 16.16 fixed point: how much a point's x adds to its displayed y.
    public var b: Int32 { values[1] }
    /// The u term, in 2.30 fixed point: a perspective term, 0 in the matrices this library makes.
    public var u: Int32 { values[2] }
    /// The c term, in 16.16 fixed point: how much a point's y adds to its displayed x.
    public var c: Int32 { values[3] }
    /// The d term, in 16.16 fixed point: how much a point's y adds to its displayed y.
    public var d: Int32 { values[4] }
    /// The v term, in 2.30 fixed point: a perspective term, 0 in the matrices this library makes.
    public var v: Int32 { values[5] }
    /// The horizontal translation (the spec's x), in pixels as 16.16 fixed point.
    public var tx: Int32 { values[6] }
    /// The vertical translation (the spec's y), in pixels as 16.16 fixed point.
    public var ty: Int32 { values[7] }
    /// The w term, in 2.30 fixed point: ``TransformationMatrix/one30`` (1.0) in the matrices this
    /// library makes.
    public var w: Int32 { values[8] }

    /// The 36 bytes as stored in an atom.
    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 36)
        write(to: &writer)
        return writer.bytes
    }

    func write(to writer: inout ByteWriter) {
        for value in values { writer.write(value) }
    }

    static func read(from reader: inout ByteReader) throws(MovieFormatError) -> TransformationMatrix {
        var values: [Int32] = []
        values.reserveCapacity(9)
        for _ in 0..<9 { values.append(try reader.readInt32()) }
        return TransformationMatrix(rawValues: values)!
    }

    /// The matrix the way exiftool prints `MatrixStructure`: a–d as decimals, translations in
    /// pixels, u, v, w as decimals.
    public var description: String {
        func format(_ v: Int32, fractionBits: Int32) -> String {
            let unit = Int64(1) << fractionBits
            let value = Int64(v)
            return value % unit == 0 ? String(value / unit) : String(Double(value) / Double(unit))
        }
        return values.enumerated().map { format($1, fractionBits: $0 % 3 == 2 ? 30 : 16) }.joined(separator: " ")
    }
}
