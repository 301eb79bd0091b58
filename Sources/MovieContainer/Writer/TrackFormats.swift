/// A handle to a track of a ``MovieWriter``.
public struct TrackID: Hashable, Sendable, CustomStringConvertible {
    /// The `tkhd` track ID: 1 for the first track added.
    public let rawValue: UInt32
    /// A textual representation of the handle, such as `track 1`.
    public var description: String { "track \(rawValue)" }
}

/// What a video track holds: its sample description, time scale and orientation.
public struct VideoTrackFormat: Sendable {
    /// The sample description, such as `avc1` with its `avcC`.
    package var sampleEntry: VideoSampleEntry
    /// Ticks per second of the track's timestamps. Apple's capture uses 600, which is exact for
    /// 24, 25, 30, 50 and 60 fps.
    public var timescale: UInt32
    /// The orientation written into the track's `tkhd` matrix.
    public var orientation: VideoOrientation
    /// The duration of the last frame when nothing else says it, in `timescale` ticks.
    public var nominalFrameDuration: UInt32

    package init(sampleEntry: VideoSampleEntry, timescale: UInt32 = 600, orientation: VideoOrientation = .up,
                nominalFrameDuration: UInt32? = nil) {
        self.sampleEntry = sampleEntry
        self.timescale = timescale
        self.orientation = orientation
        self.nominalFrameDuration = nominalFrameDuration ?? max(1, timescale / 30)
    }

    /// An H.264 track whose size, aspect ratio and colours come from the SPS unless given.
    public init(h264 configuration: AVCDecoderConfiguration, timescale: UInt32 = 600,
                orientation: VideoOrientation = .up, nominalFrameDuration: UInt32? = nil,
                color: ColorDescription? = nil) {
        let entry = VideoSampleEntry(h264: configuration, width: UInt16(configuration.sps.width),
                                     height: UInt16(configuration.sps.height), color: color)
        self.init(sampleEntry: entry, timescale: timescale, orientation: orientation,
                  nominalFrameDuration: nominalFrameDuration)
    }
}

/// What an audio track holds: uncompressed PCM. Its time scale is the sample rate and each
/// sample is one PCM frame.
public struct AudioTrackFormat: Sendable {
    /// The layout of the track's samples; its sample rate is the track's time scale.
    public var pcm: PCMFormat

    /// Creates a format for a track of PCM audio.
    /// - Parameter pcm: The layout of the samples.
    public init(pcm: PCMFormat) { self.pcm = pcm }
}
