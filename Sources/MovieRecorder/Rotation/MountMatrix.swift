import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
/// How a sensor chip sits on the board: the rotation that takes a reading from the chip's axes
/// to the device's, as the kernel publishes it in an IIO device's `mount_matrix` attributes.
///
/// The kernel prints the matrix one row per device axis, rows separated by semicolons and
/// values by commas — `x1, y1, z1; x2, y2, z2; x3, y3, z3` — so the device-frame reading is the
/// matrix times the sensor's column vector: `x' = x1·x + y1·y + z1·z`, and so on for y' and z'
/// (Documentation/ABI/testing/sysfs-bus-iio, `mount_matrix`; the device tree binding
/// Documentation/devicetree/bindings/iio/mount-matrix.txt spells out the product). The identity
/// matrix means the chip's axes already are the device's.
package struct MountMatrix: Hashable, Sendable, CustomStringConvertible {
    /// The rows: row 0 gives the device's x from the sensor's x, y and z; rows 1 and 2 give y
    /// and z.
    package let rows: [SIMD3<Double>]

    /// Creates a matrix from its three rows.
    package init(rows: [SIMD3<Double>]) {
        precondition(rows.count == 3, "a mount matrix has three rows, not \(rows.count)")
        self.rows = rows
    }

    /// The chip mounted square with the device: readings pass through unchanged.
    package static let identity = MountMatrix(rows: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)])

    /// The determinant: ±1 for a rotation (−1 when it also mirrors an axis, as for a chip on
    /// the back of the board); near 0 when the matrix loses an axis.
    package var determinant: Double {
        let (a, b, c) = (rows[0], rows[1], rows[2])
        return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    }

    /// Takes a reading in the sensor's axes to the device's.
    package func apply(_ v: GravityVector) -> GravityVector {
        let s = SIMD3(v.x, v.y, v.z)
        return GravityVector(x: (rows[0] * s).sum(), y: (rows[1] * s).sum(), z: (rows[2] * s).sum())
    }

    /// The matrix as the kernel prints it.
    package var description: String {
        rows.map { row in [row.x, row.y, row.z].map(Self.format).joined(separator: ", ") }.joined(separator: "; ")
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Why a text is not a usable mount matrix.
    struct Invalid: Error {
        let reason: String
    }

    /// The largest |determinant| treated as singular. A rotation has 1; the kernel's examples
    /// round their entries to three places, which moves the determinant by far less than this.
    static let singularDeterminant = 1e-3

    /// Parses the kernel's text form, `x1, y1, z1; x2, y2, z2; x3, y3, z3`, with any spaces
    /// and a trailing newline.
    /// - Throws: `Invalid` when the text is not three rows of three finite numbers, or the
    ///   matrix is singular.
    init(parsing text: String) throws(Invalid) {
        let groups = text.split(separator: ";", omittingEmptySubsequences: false)
        guard groups.count == 3 else {
            throw Invalid(reason: "\(groups.count) row\(groups.count == 1 ? "" : "s") where three, separated by semicolons, are needed")
        }
        var rows: [SIMD3<Double>] = []
        for (index, group) in groups.enumerated() {
            let fields = group.split(separator: ",", omittingEmptySubsequences: false)
            let values = fields.compactMap { Double(trimmingSysfsWhitespace($0)) }.filter(\.isFinite)
            guard fields.count == 3, values.count == 3 else {
                throw Invalid(reason: "row \(index + 1), '\(trimmingSysfsWhitespace(group))', is not three numbers separated by commas")
            }
            rows.append(SIMD3(values[0], values[1], values[2]))
        }
        let matrix = MountMatrix(rows: rows)
        guard abs(matrix.determinant) > Self.singularDeterminant else {
            throw Invalid(reason: "the matrix is singular (determinant \(matrix.determinant)): "
                          + "it maps the sensor's three axes onto fewer than three device axes")
        }
        self = matrix
    }
}
