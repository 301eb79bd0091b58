/// Seconds since midnight, January 1, 1904, UTC: how QuickTime stores creation and
/// modification times.
public struct QuickTimeTimestamp: Hashable, Sendable, Comparable {
    /// Seconds since 1904-01-01 00:00:00 UTC.
    public var secondsSince1904: UInt64

    /// Seconds from 1904-01-01 to 1970-01-01.
    public static let unixEpochOffset: UInt64 = 2_082_844_800

    /// Creates a timestamp from seconds since 1904-01-01 00:00:00 UTC, the value `mvhd`, `tkhd`
    /// and `mdhd` store.
    public init(secondsSince1904: UInt64) { self.secondsSince1904 = secondsSince1904 }

    /// Creates a timestamp from seconds since 1970-01-01 UTC.
    public init(unixSeconds: Int64) {
        secondsSince1904 = UInt64(max(0, unixSeconds + Int64(Self.unixEpochOffset)))
    }

    /// Seconds since 1970-01-01 UTC.
    public var unixSeconds: Int64 { Int64(secondsSince1904) - Int64(Self.unixEpochOffset) }

    /// Returns a Boolean value that indicates whether the first timestamp is earlier than the
    /// second.
    /// - Parameters:
    ///   - l: A timestamp to compare.
    ///   - r: Another timestamp to compare.
    public static func < (l: Self, r: Self) -> Bool { l.secondsSince1904 < r.secondsSince1904 }
}
