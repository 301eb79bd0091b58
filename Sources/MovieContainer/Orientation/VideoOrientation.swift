

/// How a player must turn and flip a video's encoded pixels to show them upright.
///
/// `rotationAngle` has the meaning of `AVCaptureConnection.videoRotationAngle`: degrees
/// clockwise, one of 0, 90, 180 or 270. `isMirrored` flips the picture left to right *after* the
/// rotation, as `isVideoMirrored` does for a front camera. A movie stores the orientation in its
/// video track's `tkhd` matrix; the pixels are never rotated.
///
/// Different readers print the same orientation differently:
///
/// | angle | mirrored | matrix a b c d | ffprobe `rotation` | mediainfo, exiftool | Exif |
/// |---|---|---|---|---|---|
/// | 0   | no  | 1 0 0 1   | 0    | 0   | 1 |
/// | 90  | no  | 0 1 −1 0  | −90  | 90  | 6 |
/// | 180 | no  | −1 0 0 −1 | −180 | 180 | 3 |
/// | 270 | no  | 0 −1 1 0  | 90   | 270 | 8 |
/// | 0   | yes | −1 0 0 1  | −180 | 180 | 2 |
/// | 90  | yes | 0 1 1 0   | −90  | 90  | 5 |
/// | 180 | yes | 1 0 0 −1  | 0    | 0   | 4 |
/// | 270 | yes | 0 −1 −1 0 | 90   | 270 | 7 |
public struct VideoOrientation: Hashable, Sendable, CustomStringConvertible {
    /// The clockwise rotation in quarter turns, 0 to 3.
    private let quarterTurns: Int
    /// A Boolean value that indicates whether the picture is flipped left to right after the
    /// rotation.
    public let isMirrored: Bool

    /// The upright orientation: no rotation, no mirroring.
    public static let up = VideoOrientation(quarterTurns: 0, isMirrored: false)

    /// The clockwise rotation in degrees: 0, 90, 180 or 270.
    public var rotationAngle: Int { quarterTurns * 90 }

    private init(quarterTurns: Int, isMirrored: Bool) {
        self.quarterTurns = quarterTurns
        self.isMirrored = isMirrored
    }

    /// Creates an orientation from a clockwise angle in degrees.
    ///
    /// - Parameters:
    ///   - rotationAngle: 0, 90, 180 or 270 (as `Double` because capture angles are, like
    ///     `AVCaptureConnection.videoRotationAngle`).
    ///   - isMirrored: whether the picture is flipped left to right after the rotation.
    /// - Throws: ``OrientationError`` for any other angle — 45, −90, 360, NaN, infinity. An
    ///   angle is never snapped to the nearest supported one.
    public init(rotationAngle: Double, isMirrored: Bool = false) throws(OrientationError) {
        guard Self.isSupported(rotationAngle: rotationAngle) else {
            throw OrientationError(angle: rotationAngle)
        }
        self.init(quarterTurns: Int(rotationAngle) / 90, isMirrored: isMirrored)
    }

    /// Returns a Boolean value that indicates whether an angle is one a movie can store:
    /// exactly 0, 90, 180 or 270.
    public static func isSupported(rotationAngle: Double) -> Bool {
        rotationAngle == 0 || rotationAngle == 90 || rotationAngle == 180 || rotationAngle == 270
    }

    /// All eight orientations: the four angles, unmirrored then mirrored.
    public static let allCases: [VideoOrientation] = [false, true].flatMap { mirrored in
        (0..<4).map { VideoOrientation(quarterTurns: $0, isMirrored: mirrored) }
    }

    /// The `tkhd` matrix for a track whose encoded pictures are `width` × `height` pixels, with
    /// the translation terms Apple writes so the picture stays in the positive quadrant
    /// (QuickTime File Format, "Matrices"; reference tables §1.2–1.3).
    public func matrix(width: Int32, height: Int32) -> TransformationMatrix {
        let (w, h) = (width, height)
        switch (quarterTurns, isMirrored) {
        case (0, false): return TransformationMatrix(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        case (1, false): return TransformationMatrix(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        case (2, false): return TransformationMatrix(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case (3, false): return TransformationMatrix(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        case (0, true): return TransformationMatrix(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
        case (1, true): return TransformationMatrix(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        case (2, true): return TransformationMatrix(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
        default: return TransformationMatrix(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
        }
    }

    /// Reads the orientation a matrix expresses from its a, b, c, d terms, whatever its
    /// translation; returns `nil` for a matrix that scales, shears or uses perspective.
    public init?(matrix: TransformationMatrix) {
        guard matrix.u == 0, matrix.v == 0, matrix.w == TransformationMatrix.one30 else { return nil }
        for candidate in Self.allCases {
            let m = candidate.matrix(width: 0, height: 0)
            if m.a == matrix.a, m.b == matrix.b, m.c == matrix.c, m.d == matrix.d {
                self = candidate
                return
            }
        }
        return nil
    }

    /// The angle ffprobe prints as `rotation` (side data "displaymatrix"): counter-clockwise
    /// positive, computed as −atan2(b, a), so a mirrored picture reads as a different angle.
    public var ffprobeRotation: Int {
        [0, -90, -180, 90, -180, -90, 0, 90][index]
    }

    /// The clockwise angle mediainfo (`Rotation`) and exiftool (`Rotation`) print: atan2(b, a)
    /// in 0..<360. Neither reports mirroring.
    public var displayedClockwiseAngle: Int {
        [0, 90, 180, 270, 180, 90, 0, 270][index]
    }

    /// The Exif / TIFF `Orientation` tag (1–8) for a still with this orientation.
    public var exifOrientation: Int {
        [1, 6, 3, 8, 2, 5, 4, 7][index]
    }

    /// Creates the orientation an Exif `Orientation` tag (1–8) describes; `nil` for other values.
    public init?(exifOrientation: Int) {
        guard let i = [1, 6, 3, 8, 2, 5, 4, 7].firstIndex(of: exifOrientation) else { return nil }
        self = Self.allCases[i]
    }

    private var index: Int { quarterTurns + (isMirrored ? 4 : 0) }

    /// A textual representation of the orientation: the clockwise angle, then `mirrored` when
    /// flipped, such as `90°` or `0° mirrored`.
    public var description: String {
        "\(rotationAngle)°" + (isMirrored ? " mirrored" : "")
    }
}
