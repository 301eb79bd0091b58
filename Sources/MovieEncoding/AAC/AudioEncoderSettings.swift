/// How a recording stores its audio: AAC-LC, the default (as `AVCaptureMovieFileOutput`
/// writes), or uncompressed LPCM.
///
/// AAC at the default 128 kbit/s for stereo is a twelfth of 48 kHz 16-bit LPCM's 1,536 kbit/s.
/// Its encoder's delay (1024 frames) is recorded in the audio track's edit list, so the first
/// decoded frame plays at time zero.
public struct AudioEncoderSettings: Hashable, Sendable {
    /// The audio codecs a movie can hold.
    public enum Codec: String, Hashable, Sendable, CaseIterable {
        /// AAC-LC through FFmpeg's native encoder (libavcodec).
        case aac
        /// Uncompressed PCM in the source's own sample format.
        case lpcm
    }

    /// The codec; AAC by default.
    public var codec: Codec
    /// The AAC bit rate in bits per second, or `nil` for 64 kbit/s per channel (128 kbit/s for
    /// stereo, 64 kbit/s for mono). Between 8 and 256 kbit/s per channel. LPCM ignores it.
    public var bitRate: Int?

    /// Creates settings for `codec` at `bitRate` bits per second (AAC only).
    public init(codec: Codec = .aac, bitRate: Int? = nil) {
        self.codec = codec
        self.bitRate = bitRate
    }

    /// AAC-LC at 64 kbit/s per channel.
    public static let aac = AudioEncoderSettings(codec: .aac)
    /// Uncompressed PCM.
    public static let lpcm = AudioEncoderSettings(codec: .lpcm)

    /// The AAC bit rate for `channelCount` channels: ``bitRate``, or 64 kbit/s per channel.
    public func aacBitRate(channelCount: Int) -> Int {
        bitRate ?? AACEncoder.defaultBitRate(channelCount: channelCount)
    }
}
