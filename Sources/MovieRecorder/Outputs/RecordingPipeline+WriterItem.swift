import MovieContainer
import MovieCapture
import MovieEncoding

extension RecordingPipeline {
    /// What goes through the writing queue to the writing thread: encoded video, audio placed
    /// on a segment's timeline, the end of a segment's audio, and the end of either track. Times
    /// of audio are from the segment's start; video samples keep the recording's times.
    enum WriterItem {
        case video(EncodedVideoSample, segment: Int)
        /// PCM: a buffer's frames where the audio thread placed them in `segment`.
        case audioFrames(AudioBuffer, AudioTrackTimeline.Placement, segment: Int)
        /// AAC access units; `startTime` is where the first input frame sits and `end` where the
        /// audio fed to the encoder so far ends, in ticks of the sample rate.
        case audioPackets([[UInt8]], startTime: Int64, end: Int64, segment: Int)
        /// A timed metadata sample for metadata track `track` (an index into the segment's
        /// tracks) at `time`, in video ticks from the recording's start.
        case metadata([TimedMetadataItem], track: Int, time: Int64, segment: Int)
        /// PCM frames for event clips, as placed on the recording's audio timeline (sent only
        /// when the recording keeps event clips).
        case eventAudio(EncodedPreRoll.AudioChunk)
        /// All of `segment`'s audio has been sent.
        case audioSegmentEnded(segment: Int)
        case videoEnded
        case audioEnded
    }

    /// What goes through the audio queue to the audio thread: a buffer whose timestamp is on
    /// the capture clock (a file source's aligned with the video), taken after `pauseEpoch`
    /// resumes. The audio thread takes out that epoch's pause offset once the first frame after
    /// the resume has fixed it, so audio and video lose exactly the same time to a pause. The
    /// end of the audio is the queue's closing, which never blocks whoever ends it.
    struct AudioItem {
        var buffer: AudioBuffer
        var pauseEpoch: Int
    }
}
