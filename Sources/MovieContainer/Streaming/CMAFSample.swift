/// One sample of a CMAF chunk: an encoded picture (length-prefixed NAL units) or an AAC access
/// unit, with its times in its track's timescale.
package struct CMAFSample: Sendable {
    package var data: [UInt8]
    /// The decode time, in the track's ticks from the stream's start; never negative.
    package var decodeTime: UInt64
    package var duration: UInt32
    /// Presentation time minus decode time; 0 without B-frames.
    package var compositionOffset: Int32
    /// A Boolean value that indicates whether decoding can start here (an IDR; every AAC unit).
    package var isSync: Bool

    package init(data: [UInt8], decodeTime: UInt64, duration: UInt32, compositionOffset: Int32 = 0, isSync: Bool) {
        self.data = data
        self.decodeTime = decodeTime
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.isSync = isSync
    }
}
