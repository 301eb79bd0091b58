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

    /// An HEVC track ('hvc1') whose size, aspect ratio and colours come from the SPS unless given.
    public init(hevc configuration: HEVCDecoderConfiguration, timescale: UInt32 = 600,
                orientation: VideoOrientation = .up, nominalFrameDuration: UInt32? = nil,
                color: ColorDescription? = nil) {
        let entry = VideoSampleEntry(hevc: configuration, width: UInt16(configuration.sps.width),
                                     height: UInt16(configuration.sps.height), color: color)
        self.init(sampleEntry: entry, timescale: timescale, orientation: orientation,
                  nominalFrameDuration: nominalFrameDuration)
    }
}

/// What an audio track holds: uncompressed PCM, whose every sample is one frame, or AAC,
/// whose every sample is one access unit of 1024 frames. Either way the track's time scale is
/// the sample rate.
public struct AudioTrackFormat: Hashable, Sendable {
    /// How a track's audio is stored.
    public enum Encoding: Hashable, Sendable {
        /// Uncompressed PCM in this layout.
        case pcm(PCMFormat)
        /// AAC with this configuration and encoder delay.
        case aac(AACFormat)
    }

    /// How the track's audio is stored.
    public var encoding: Encoding

    /// Creates a format for a track of PCM audio.
    /// - Parameter pcm: The layout of the samples.
    public init(pcm: PCMFormat) { encoding = .pcm(pcm) }

    /// Creates a format for a track of AAC audio; its edit list hides the encoder's delay.
    /// - Parameter aac: The encoder's configuration and delay.
    public init(aac: AACFormat) { encoding = .aac(aac) }

    /// The PCM layout, for a PCM track.
    public var pcm: PCMFormat? {
        if case .pcm(let format) = encoding { return format }
        return nil
    }

    /// The AAC configuration, for an AAC track.
    public var aac: AACFormat? {
        if case .aac(let format) = encoding { return format }
        return nil
    }

    /// Frames per second: the track's time scale.
    public var sampleRate: UInt32 {
        switch encoding {
        case .pcm(let format): format.sampleRate
        case .aac(let format): format.sampleRate
        }
    }

    /// The number of channels.
    public var channelCount: UInt16 {
        switch encoding {
        case .pcm(let format): format.channelCount
        case .aac(let format): format.channelCount
        }
    }
}

/// What a timed metadata track holds: its keys, its time scale, and the track its samples
/// describe (a `cdsc` track reference), as `AVAssetWriterInputMetadataAdaptor` writes one.
public struct MetadataTrackFormat: Hashable, Sendable {
    /// The keys the track's samples may hold, listed once in its `mebx` description.
    public var keys: [TimedMetadataKey]
    /// Ticks per second of the track's timestamps.
    public var timescale: UInt32
    /// The track the metadata describes, such as the video track; `nil` for none.
    public var describedTrack: TrackID?

    /// Creates a format.
    /// - Parameters:
    ///   - keys: The keys the samples may hold; at least one.
    ///   - timescale: Ticks per second; 600 by default, as Apple's capture uses.
    ///   - describedTrack: The track the metadata describes.
    public init(keys: [TimedMetadataKey], timescale: UInt32 = 600, describedTrack: TrackID? = nil) {
        self.keys = keys
        self.timescale = timescale
        self.describedTrack = describedTrack
    }
}
