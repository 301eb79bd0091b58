/// The level of one audio channel, as `AVCaptureAudioChannel` reports it: in decibels relative
/// to full scale (dBFS), 0 being the loudest a sample can be.
public struct AudioChannelLevel: Hashable, Sendable {
    /// The average power of the last buffer: its RMS in dBFS, where a full-scale square wave reads
    /// 0 and a sine of amplitude A (a fraction of full scale) reads 20·log10(A/√2), −3.01 dB at
    /// full scale. ``floor`` for silence.
    public var averagePowerLevel: Float
    /// The highest sample magnitude of the last second, in dBFS: 0 for a clipped signal.
    /// ``floor`` for silence.
    public var peakHoldLevel: Float

    /// What silence reads: −160 dBFS, below anything 24-bit samples can carry.
    public static let floor: Float = -160

    /// Creates a level.
    /// - Parameters:
    ///   - averagePowerLevel: The average power in dBFS.
    ///   - peakHoldLevel: The held peak in dBFS.
    public init(averagePowerLevel: Float, peakHoldLevel: Float) {
        self.averagePowerLevel = averagePowerLevel
        self.peakHoldLevel = peakHoldLevel
    }
}
