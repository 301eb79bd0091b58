import MovieContainer
import MoviePlatform
import MovieEncoding

extension RecordingPipeline {
    /// What one recording writes and when it stops: the file, the encoders' settings, the
    /// orientation, the limits, the fragmenting, the metadata and the segmenting, as
    /// ``MovieFileOutput`` had them when the recording started.
    struct Settings: Sendable {
        /// The first file's path.
        var path: String
        var overwrite: Bool
        var encoder: VideoEncoderSettings
        var audio: AudioEncoderSettings = .aac
        /// Whether audio from a device with a clock of its own is resampled to follow the system clock.
        var audioClockCorrection = true
        var orientation: VideoOrientation
        var maxDuration: Duration?
        var maxFileSize: UInt64?
        var minFreeDiskSpace: UInt64?
        var fragmentInterval: Duration?
        var durability: MovieWriter.Durability = .none
        var metadataCreationTime: QuickTimeTimestamp
        var metadata: [MetadataItem] = []
        /// Automatic segments and retention, for a recording started with segment names.
        var segments: Segmenting?
        /// Whether the movie has a timed location track (a location source is attached).
        var recordsLocation = false
        /// The application's timed keys, each a track of its own.
        var timedMetadataKeys: [TimedMetadataKey] = []
        /// Where event clips go and how far back they reach; nil keeps none.
        var eventClips: EventClipSettings?
        /// Whether the recording steps its frame rate (and asks a live view to give way) when
        /// it falls behind or the machine overheats.
        var degradesUnderPressure = false
        /// Tests only: an encoder standing in for hardware (``MovieFileOutput/useStandInVideoEncoder(_:)``).
        var standInEncoder: VideoEncoderMaker?
    }

    /// How a segmented recording switches files by itself, and which of its files it keeps.
    struct Segmenting: Sendable {
        var names: SegmentFileNames
        var duration: Duration?
        var fileSize: UInt64?
        var maximumCount: Int?
        var maximumTotalSize: UInt64?
        /// Whether a change of the capture angle starts a new segment carrying it.
        var onRotationChange = false
    }

    /// A switch to a new file, made at the next frame the audio has not passed: its path (with
    /// the file already created for a switch the application asked for) and orientation.
    struct SwitchRequest: Sendable {
        var path: String
        var file: RandomAccessFile?
        var overwrite: Bool
        var orientation: VideoOrientation
    }

    /// A segment the recording started: where and when.
    struct SegmentStart: Sendable {
        var path: String
        var file: RandomAccessFile?
        var overwrite: Bool
        var orientation: VideoOrientation
        /// Its first frame's time on the recording's timeline (nanoseconds, pauses taken out).
        var time: UInt64
        /// The wall-clock second it started, for its creation date.
        var unixSeconds: Int64
        /// The counters when it started, for its result.
        var dropped: Int
        var plannedDropped: Int
        var corrupted: Int
        var overruns: Int
    }
}
