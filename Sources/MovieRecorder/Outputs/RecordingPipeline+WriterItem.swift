import MovieCapture
import MovieEncoding

extension RecordingPipeline {
    /// What goes through the writing queue to the writing thread: encoded video, audio, and the
    /// end of either.
    enum WriterItem {
        case video(EncodedVideoSample)
        case audio(AudioBuffer)
        case videoEnded
        case audioEnded
    }
}
