import MovieContainer
#if canImport(Glibc)
import Glibc
#endif

/// Measures per-channel levels of interleaved PCM buffers: the RMS of each buffer and the peak
/// held over the last second of audio, in dBFS (``AudioChannelLevel``).
///
/// Integer samples are scaled by their full scale (32768 for 16 bits), so the most negative
/// sample reads exactly 0 dBFS; float samples are taken as they are (1.0 full scale).
public struct AudioLevelMeter: Sendable {
    /// The format of the buffers measured.
    public let format: PCMFormat
    /// How long a peak is held, in frames (one second).
    private let holdFrames: Int
    private var heldPeaks: [Double]
    private var heldFor: [Int]

    /// Creates a meter for buffers of `format`.
    /// - Throws: ``SourceError`` with `unsupportedFormat` for a sample size other than 16, 24 or
    ///   32 bits (integer) or 32 bits (float).
    public init(format: PCMFormat) throws {
        let supported = format.isFloat ? format.bitsPerChannel == 32 : [16, 24, 32].contains(format.bitsPerChannel)
        guard supported, format.channelCount > 0 else {
            throw SourceError(.unsupportedFormat, source: "AudioLevelMeter", step: "creating",
                              "\(format) cannot be metered; use 16, 24 or 32-bit integer or 32-bit float samples")
        }
        self.format = format
        holdFrames = Int(format.sampleRate)
        heldPeaks = Array(repeating: 0, count: Int(format.channelCount))
        heldFor = Array(repeating: 0, count: Int(format.channelCount))
    }

    /// Measures one buffer and returns each channel's level.
    public mutating func measure(_ buffer: AudioBuffer) -> [AudioChannelLevel] {
        let channels = Int(format.channelCount)
        var squares = [Double](repeating: 0, count: channels)
        var peaks = [Double](repeating: 0, count: channels)
        let frames = min(buffer.frameCount, buffer.bytes.count / max(1, format.bytesPerFrame))
        buffer.bytes.withUnsafeBytes { bytes in
            if format.bitsPerChannel == 16, !format.isFloat, !format.isBigEndian {
                // The common case (16-bit little-endian, as ALSA and the tone give) read directly.
                for frame in 0..<frames {
                    for channel in 0..<channels {
                        let raw = bytes.loadUnaligned(fromByteOffset: 2 * (frame * channels + channel), as: Int16.self)
                        let value = Double(Int16(littleEndian: raw)) / 32768
                        squares[channel] += value * value
                        peaks[channel] = max(peaks[channel], abs(value))
                    }
                }
                return
            }
            for frame in 0..<frames {
                for channel in 0..<channels {
                    let value = sample(bytes, at: frame * channels + channel)
                    squares[channel] += value * value
                    peaks[channel] = max(peaks[channel], abs(value))
                }
            }
        }
        return (0..<channels).map { channel in
            heldFor[channel] += frames
            if peaks[channel] >= heldPeaks[channel] || heldFor[channel] > holdFrames {
                heldPeaks[channel] = peaks[channel]
                heldFor[channel] = 0
            }
            let rms = frames == 0 ? 0 : (squares[channel] / Double(frames)).squareRoot()
            return AudioChannelLevel(averagePowerLevel: Self.decibels(rms), peakHoldLevel: Self.decibels(heldPeaks[channel]))
        }
    }

    /// Sample `index` of interleaved `bytes` as a fraction of full scale.
    private func sample(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Double {
        let size = Int(format.bitsPerChannel) / 8
        var raw: UInt32 = 0
        for k in 0..<size {
            let byte = UInt32(bytes[index * size + (format.isBigEndian ? k : size - 1 - k)])
            raw = raw << 8 | byte
        }
        if format.isFloat { return Double(Float(bitPattern: raw)) }
        let shift = UInt32(32 - 8 * size)
        return Double(Int32(bitPattern: raw << shift)) / 2_147_483_648
    }

    /// A linear level in dBFS, ``AudioChannelLevel/floor`` at and below it.
    static func decibels(_ level: Double) -> Float {
        guard level > 0 else { return AudioChannelLevel.floor }
        return max(AudioChannelLevel.floor, Float(20 * log10(level)))
    }
}
