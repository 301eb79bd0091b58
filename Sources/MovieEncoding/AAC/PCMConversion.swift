import MovieContainer
internal import CAVCodec

/// Converts interleaved PCM of any layout a movie can hold into the planar 32-bit floats
/// FFmpeg's AAC encoder takes.
enum PCMConversion {
    /// Writes `frames` frames of `pcm` (interleaved, in `format`) into `frame`'s planes starting
    /// at frame `start`.
    static func deinterleave(_ pcm: UnsafeRawBufferPointer, frames: Int, format: PCMFormat,
                             into frame: UnsafeMutablePointer<AVFrame>, at start: Int) {
        let channels = Int(format.channelCount)
        let bytesPerSample = Int(format.bitsPerChannel) / 8
        for channel in 0..<channels {
            guard let plane = frame.pointee.extended_data[channel] else { continue }
            let out = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self) + start
            var offset = channel * bytesPerSample
            let stride = channels * bytesPerSample
            for index in 0..<frames {
                out[index] = sample(pcm, at: offset, format: format)
                offset += stride
            }
        }
    }

    /// One sample at byte `offset`, scaled to −1…1.
    @inline(__always)
    static func sample(_ pcm: UnsafeRawBufferPointer, at offset: Int, format: PCMFormat) -> Float {
        switch (format.bitsPerChannel, format.isFloat) {
        case (16, false):
            let raw = pcm.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
            return Float(Int16(bitPattern: format.isBigEndian ? raw.byteSwapped : raw)) / 32768
        case (24, false):
            let b0 = UInt32(pcm[offset]), b1 = UInt32(pcm[offset + 1]), b2 = UInt32(pcm[offset + 2])
            let raw = format.isBigEndian ? b0 << 24 | b1 << 16 | b2 << 8 : b2 << 24 | b1 << 16 | b0 << 8
            return Float(Int32(bitPattern: raw)) / 2_147_483_648
        case (32, false):
            let raw = pcm.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Float(Int32(bitPattern: format.isBigEndian ? raw.byteSwapped : raw)) / 2_147_483_648
        case (32, true):
            let raw = pcm.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Float(bitPattern: format.isBigEndian ? raw.byteSwapped : raw)
        default:
            let raw = pcm.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            return Float(Double(bitPattern: format.isBigEndian ? raw.byteSwapped : raw))
        }
    }
}
