// What a writer is configured with, and the summary its finish returns.
extension MovieWriter {
    /// Settings that apply to the whole movie.
    public struct Configuration: Sendable {
        /// The `mvhd` time scale; Apple writes 600.
        public var movieTimescale: UInt32 = 600
        /// The creation and modification time written into `mvhd`, `tkhd` and `mdhd`.
        public var creationTime: QuickTimeTimestamp
        /// How much media each chunk holds before it is written; Apple's interleaving period is
        /// half a second.
        public var chunkDuration: Duration = .milliseconds(500)
        /// How often a movie fragment is written, or `nil` for the classic layout with the movie
        /// atom only at the end. With fragments, a file cut off at any moment (a crash, a kill,
        /// a power cut) keeps everything up to the last whole fragment; a normal finish still
        /// leaves an ordinary movie. See ``MovieWriter`` for the layout.
        public var fragmentInterval: Duration?
        /// When written data is forced to the disk.
        public var durability = Durability.none
        /// A Boolean value that indicates whether each fragment's `moof` carries a CRC-32C of its
        /// media (in a `uuid` atom players skip), so repair keeps only fragments whose media
        /// reached the disk intact. Recordings turn it on; it costs a pass over the media.
        public var checksumsFragments = false
        /// Movie metadata (creation date, location, device, software…), written as `moov/meta`
        /// after the tracks; nothing is written when it is empty.
        public var metadata: [MetadataItem] = []
        /// A Boolean value that indicates whether consecutive media writes are collected into
        /// gathered writes of up to 4 MB (``MediaWriteBatch``) instead of one write per chunk:
        /// for a muxer, whose media is borrowed and whose chunks may be small. Media then
        /// reaches the sink later than ``MovieWriter/bytesWritten`` says, at the latest when
        /// anything else is written.
        package var coalescesMediaWrites = false

        /// Creates a configuration with the default time scale, chunk duration and durability, and
        /// without fragments.
        /// - Parameters:
        ///   - creationTime: The creation and modification time written into `mvhd`, `tkhd` and
        ///     `mdhd`.
        ///   - metadata: Movie metadata, written as `moov/meta`; none by default.
        public init(creationTime: QuickTimeTimestamp, metadata: [MetadataItem] = []) {
            self.creationTime = creationTime
            self.metadata = metadata
        }
    }

    /// When the writer forces data to the disk with `fdatasync`.
    public enum Durability: Sendable, Hashable {
        /// Never while recording; the kernel writes it back in its own time (a kill loses
        /// nothing already written, a power cut may lose the last seconds).
        case none
        /// After every fragment: a power cut loses at most one fragment, at the cost of a disk
        /// flush per fragment.
        case syncEachFragment
    }

    /// What ``finish(endTimes:)`` wrote.
    public struct Summary: Sendable {
        /// The movie's duration in `mvhd` ticks.
        public var duration: UInt64
        /// The movie's time scale from `mvhd`: ticks per second.
        public var movieTimescale: UInt32
        /// The size of the whole file in bytes.
        public var fileSize: UInt64
        /// The sample count of each track, by track.
        public var sampleCounts: [TrackID: UInt64]
        /// Whether chunk offsets needed `co64`.
        public var usesLargeOffsets: Bool
    }
}
