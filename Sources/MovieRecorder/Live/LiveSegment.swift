import MovieContainer

/// A piece of the live stream, handed out as `AVAssetWriter` hands out segment data: its bytes,
/// what kind of piece it is, and for media a report of what it holds.
///
/// Concatenated in order — the initialization segment, then every part — the pieces are one
/// valid fragmented MP4 (CMAF) stream. The parts of one segment, concatenated, are that segment.
public struct LiveSegment: Sendable {
    /// What a piece holds.
    public enum Kind: Hashable, Sendable {
        /// `ftyp` and `moov`: what a player needs before any media. A new one comes when the
        /// stream restarts or the capture orientation changes (its matrix turned).
        case initialization
        /// A partial segment: one or more `moof` + `mdat` chunks, about
        /// ``LiveStreamSettings/partTarget`` long.
        case part
    }

    /// What this piece holds.
    public let kind: Kind
    /// The bytes.
    public let data: [UInt8]
    /// For a part, what it holds; `nil` for an initialization segment.
    public let report: LiveSegmentReport?
}

/// What a part of the live stream holds, like `AVAssetSegmentReport`.
public struct LiveSegmentReport: Hashable, Sendable {
    /// The number of the segment the part belongs to, counted from 0 at the start of each
    /// stream (each time the session starts, or its inputs change).
    public let segmentSequenceNumber: Int
    /// The part's index within its segment, from 0.
    public let partIndex: Int
    /// A Boolean value that indicates whether the part starts with an IDR picture, so a player
    /// can start decoding at it (the first part of every segment does).
    public let isIndependent: Bool
    /// The presentation time of the part's first video sample on the stream's timeline.
    public let earliestPresentationTime: Duration
    /// How long the part lasts.
    public let duration: Duration
    /// When the part's first picture was captured, in nanoseconds since 1970-01-01 UTC (the
    /// wall clock, as the `prft` box and HLS's program date time give it).
    public let captureTime: UInt64
    /// The clockwise capture angle the part's pictures are to be shown at.
    public let orientation: VideoOrientation
}
