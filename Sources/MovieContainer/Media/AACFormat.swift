/// AAC audio as a movie stores it: the decoder's configuration (the MPEG-4
/// `AudioSpecificConfig` the encoder gives), the bit rates `esds` declares, and the encoder's
/// delay, which the track's edit list hides.
///
/// Every AAC access unit decodes to ``framesPerPacket`` frames; the track's time scale is the
/// sample rate and each sample is one access unit.
public struct AACFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames each access unit decodes to.
    public static let framesPerPacket = 1024

    /// The MPEG-4 `AudioSpecificConfig` (ISO/IEC 14496-3), as the encoder gives it; the object
    /// type, rate and channels come from it.
    public private(set) var audioSpecificConfig: [UInt8]
    /// The audio object type from the configuration: 2 for AAC-LC.
    public let objectType: UInt8
    /// Frames per second.
    public let sampleRate: UInt32
    /// The number of channels.
    public let channelCount: UInt16
    /// The frames the decoder returns before the first input frame (the encoder's delay, 1024 for
    /// FFmpeg's encoder): the audio track's edit list starts the movie after them.
    public var primingFrames: UInt32
    /// The average bit rate in bits per second, as `esds` declares it; 0 when unknown.
    public var averageBitRate: UInt32
    /// The highest bit rate over one second in bits per second, as `esds` declares it; 0 when
    /// unknown.
    public var maxBitRate: UInt32
    /// The decoder's buffer size in bytes, as `esds` declares it; 0 when unknown.
    public var bufferSize: UInt32

    /// Creates a format from an encoder's `AudioSpecificConfig`, which gives the object type,
    /// the sample rate and the channel count.
    /// - Throws: ``MovieFormatError`` when the configuration does not parse or has a channel
    ///   layout other than channel configurations 1–7.
    public init(audioSpecificConfig: [UInt8], primingFrames: UInt32, averageBitRate: UInt32 = 0, maxBitRate: UInt32 = 0,
                bufferSize: UInt32 = 0) throws(MovieFormatError) {
        let parsed = try Self.parse(audioSpecificConfig)
        self.audioSpecificConfig = audioSpecificConfig
        objectType = parsed.objectType
        sampleRate = parsed.sampleRate
        channelCount = parsed.channelCount
        self.primingFrames = primingFrames
        self.averageBitRate = averageBitRate
        self.maxBitRate = maxBitRate
        self.bufferSize = bufferSize
    }

    /// The sampling frequencies an `AudioSpecificConfig` names by index.
    package static let sampleRates: [UInt32] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Reads the object type, sampling frequency and channel configuration that begin an
    /// `AudioSpecificConfig`.
    static func parse(_ config: [UInt8]) throws(MovieFormatError) -> (objectType: UInt8, sampleRate: UInt32, channelCount: UInt16) {
        do {
            return try parseFields(config)
        } catch where error.code == .invalidBitstream {
            throw .invalidValue("esds", "the AudioSpecificConfig of \(config.count) bytes ends before its channel configuration")
        }
    }

    private static func parseFields(_ config: [UInt8]) throws(MovieFormatError) -> (objectType: UInt8, sampleRate: UInt32, channelCount: UInt16) {
        var bits = BitReader(bytes: config)
        guard config.count >= 2 else { throw .invalidValue("esds", "an AudioSpecificConfig of \(config.count) bytes is too short") }
        var objectType = try bits.bits(5)
        if objectType == 31 { objectType = 32 + (try bits.bits(6)) }
        let index = try bits.bits(4)
        let rate: UInt32
        if index == 15 {
            rate = try bits.bits(24)
        } else if Int(index) < sampleRates.count {
            rate = sampleRates[Int(index)]
        } else {
            throw .invalidValue("esds", "AudioSpecificConfig sampling frequency index \(index) is reserved")
        }
        let configuration = try bits.bits(4)
        guard (1...7).contains(configuration), rate > 0 else {
            throw .invalidValue("esds", "the AudioSpecificConfig's channel configuration is \(configuration), not 1–7 (a program config element is not supported)")
        }
        return (UInt8(objectType), rate, configuration == 7 ? 8 : UInt16(configuration))
    }

    /// The object type's name: `AAC-LC`, `HE-AAC`, or `AAC object type N`.
    public var objectTypeName: String {
        switch objectType {
        case 1: "AAC Main"
        case 2: "AAC-LC"
        case 5: "HE-AAC"
        case 29: "HE-AACv2"
        default: "AAC object type \(objectType)"
        }
    }

    /// A textual representation of the format, such as `AAC-LC 48000 Hz 2 ch 128 kbit/s`.
    public var description: String {
        "\(objectTypeName) \(sampleRate) Hz \(channelCount) ch" + (averageBitRate > 0 ? " \(averageBitRate / 1000) kbit/s" : "")
    }
}
