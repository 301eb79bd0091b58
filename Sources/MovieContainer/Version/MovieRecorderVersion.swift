/// The version of MovieRecorder, which every module of the package shares: semantic versioning,
/// as `CHANGELOG.md` lists the releases and the PublicAPI article of the MovieRecorder
/// documentation says what each kind of release may change.
public struct MovieRecorderVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Raised for a release that breaks the public API.
    public var major: Int
    /// Raised for a release that adds to it.
    public var minor: Int
    /// Raised for a release that only fixes.
    public var patch: Int

    /// Creates a version number.
    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// This build's version.
    public static let current = MovieRecorderVersion(major: 1, minor: 0, patch: 0)

    /// `major.minor.patch`, such as `1.0.0`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// Whether `lhs` is an earlier release than `rhs`.
    public static func < (lhs: MovieRecorderVersion, rhs: MovieRecorderVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
