/// `prft`: the producer reference time of the movie fragment that follows it (ISO/IEC
/// 14496-12 §8.16.5): the wall-clock (NTP) time at which the sample at `mediaTime` of track
/// `referenceTrackID` was captured, so a client can measure how far behind the live edge it
/// plays.
///
/// Written as version 1 (a 64-bit media time) with flags 24, "captured": the time is the
/// moment the picture was taken, not when the fragment was written.
package struct ProducerReferenceTimeAtom: QuickTimeAtom {
    package static let type: FourCC = "prft"
    /// The flags value that says the NTP time is the capture time of the sample.
    package static let captured: UInt32 = 24
    /// Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01).
    package static let ntpUnixOffset: UInt64 = 2_208_988_800

    package var flags: UInt32 = Self.captured
    package var referenceTrackID: UInt32
    /// Seconds since 1900-01-01 UTC in the high 32 bits, the fraction in the low 32.
    package var ntpTimestamp: UInt64
    /// The sample's time in the reference track's timescale.
    package var mediaTime: UInt64

    package init(referenceTrackID: UInt32, ntpTimestamp: UInt64, mediaTime: UInt64) {
        self.referenceTrackID = referenceTrackID
        self.ntpTimestamp = ntpTimestamp
        self.mediaTime = mediaTime
    }

    /// The NTP timestamp of a wall-clock time given in nanoseconds since 1970-01-01 UTC.
    package static func ntpTimestamp(unixNanoseconds: UInt64) -> UInt64 {
        let seconds = unixNanoseconds / 1_000_000_000 + ntpUnixOffset
        let fraction = (unixNanoseconds % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The wall-clock time of ``ntpTimestamp``, in nanoseconds since 1970-01-01 UTC.
    package var unixNanoseconds: UInt64 {
        let seconds = (ntpTimestamp >> 32) &- Self.ntpUnixOffset
        return seconds &* 1_000_000_000 &+ ((ntpTimestamp & 0xFFFF_FFFF) * 1_000_000_000) >> 32
    }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 1, flags: flags)
        w.write(referenceTrackID)
        w.write(ntpTimestamp)
        w.write(mediaTime)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        let (version, flags) = try r.readVersionAndFlags()
        self.flags = flags
        referenceTrackID = try r.readUInt32()
        ntpTimestamp = try r.readUInt64()
        mediaTime = version == 1 ? try r.readUInt64() : UInt64(try r.readUInt32())
    }
}
