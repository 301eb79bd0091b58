/// The layout of uncompressed PCM audio: rate, channels and sample format.
public struct PCMFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second.
    public var sampleRate: UInt32
    /// The number of channels; a frame holds one sample of each.
    public var channelCount: UInt16
    /// Bits per channel sample: 16, 24 or 32 for integers, 32 or 64 for floats.
    public var bitsPerChannel: UInt16
    /// A Boolean value that indicates whether samples are floating point rather than signed
    /// integers.
    public var isFloat: Bool
    /// A Boolean value that indicates whether samples are stored big-endian rather than
    /// little-endian.
    public var isBigEndian: Bool
    /// A Boolean value that indicates whether integer samples are unsigned, offset binary
    /// (silence at the middle of the range), as QuickTime's 8-bit `raw ` audio is; `false` for
    /// signed (two's complement) samples, what the writer takes.
    public var isUnsigned = false

    /// Creates a PCM layout.
    /// - Parameters:
    ///   - sampleRate: Frames per second.
    ///   - channelCount: The number of channels.
    ///   - bitsPerChannel: Bits per channel sample: 16, 24 or 32 for integers, 32 or 64 for floats.
    ///   - isFloat: Whether samples are floating point rather than signed integers.
    ///   - isBigEndian: Whether samples are stored big-endian rather than little-endian.
    public init(sampleRate: UInt32, channelCount: UInt16, bitsPerChannel: UInt16 = 16, isFloat: Bool = false,
                isBigEndian: Bool = false) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerChannel = bitsPerChannel
        self.isFloat = isFloat
        self.isBigEndian = isBigEndian
    }

    /// Signed 16-bit little-endian samples (ALSA's S16_LE).
    public static func int16(sampleRate: UInt32, channelCount: UInt16) -> PCMFormat {
        PCMFormat(sampleRate: sampleRate, channelCount: channelCount)
    }

    /// Bytes for one frame: one sample of every channel.
    public var bytesPerFrame: Int { Int(channelCount) * Int(bitsPerChannel) / 8 }

    /// Checks that the format is one a movie can describe.
    public func validate() throws(MovieFormatError) {
        let validBits: Set<UInt16> = isFloat ? [32, 64] : [16, 24, 32]
        guard sampleRate > 0, !isUnsigned, channelCount > 0, validBits.contains(bitsPerChannel) else {
            throw .invalidValue("stsd", "PCM format \(self) is not supported: use 16-, 24- or 32-bit integers or 32- or 64-bit floats, at least one channel and a non-zero rate")
        }
    }

    /// A textual representation of the format: sample type, bits and byte order (none for a
    /// byte), rate and channels, such as `s16le 48000 Hz 2 ch` or `u8 8000 Hz 1 ch`.
    public var description: String {
        let type = isFloat ? "f" : isUnsigned ? "u" : "s"
        return "\(type)\(bitsPerChannel)\(bitsPerChannel == 8 ? "" : isBigEndian ? "be" : "le") \(sampleRate) Hz \(channelCount) ch"
    }
}
