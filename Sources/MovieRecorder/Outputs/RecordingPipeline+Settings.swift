import MovieContainer
import MovieEncoding

extension RecordingPipeline {
    /// What one recording writes and when it stops: the file, the encoder's settings, the
    /// orientation, the limits, the fragmenting and the metadata, as ``MovieFileOutput`` had
    /// them when the recording started.
    struct Settings: Sendable {
        var path: String
        var overwrite: Bool
        var encoder: H264EncoderSettings
        var audio: AudioEncoderSettings = .aac
        var orientation: VideoOrientation
        var maxDuration: Duration?
        var maxFileSize: UInt64?
        var minFreeDiskSpace: UInt64?
        var fragmentInterval: Duration?
        var durability: MovieWriter.Durability = .none
        var metadataCreationTime: QuickTimeTimestamp
        var metadata: [MetadataItem] = []
    }
}
