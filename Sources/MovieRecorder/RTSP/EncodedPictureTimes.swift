import MovieContainer
import MoviePlatform
import MovieEncoding

/// The recording's side of its ``EncodedStreamTap``: remembers when each picture given to the
/// encoder was captured, so the access unit that comes out later (B-frames and lookahead
/// reorder and delay them) is published with its own capture time, on the wall clock.
struct EncodedPictureTimes {
    private let tap: EncodedStreamTap?
    private let timescale: UInt32
    /// Capture times, monotonic, of the pictures in the encoder, by presentation time.
    private var inEncoder: [Int64: (time: UInt64, orientation: VideoOrientation)] = [:]

    init(tap: EncodedStreamTap?, format: VideoTrackFormat, timescale: UInt32) {
        self.tap = tap
        self.timescale = timescale
        if let tap, let encoded = EncodedVideoFormat(format) { tap.publish(.videoFormat(encoded)) }
    }

    /// A picture stamped `presentation` captured at `time` (monotonic nanoseconds) in
    /// `orientation` goes into the encoder.
    mutating func captured(presentation: Int64, at time: UInt64, orientation: VideoOrientation) {
        guard tap != nil else { return }
        inEncoder[presentation] = (time, orientation)
        // An encoder never holds this many; a picture it left out must not stay forever.
        if inEncoder.count > 512, let oldest = inEncoder.keys.min() { inEncoder[oldest] = nil }
    }

    /// Publishes an access unit the encoder gave back, when anyone listens.
    mutating func publish(_ sample: EncodedVideoSample, frameDuration: UInt64) {
        guard let tap, let captured = inEncoder.removeValue(forKey: sample.presentationTime), tap.hasSubscribers else { return }
        let presentation = SystemClock.unixNanoseconds(ofMonotonic: captured.time)
        let reorder = UInt64(max(0, sample.presentationTime - sample.decodeTime)) * 1_000_000_000 / UInt64(timescale)
        tap.publish(.sample(EncodedStreamSample(kind: .video, bytes: sample.data, presentation: presentation,
                                                decode: presentation - min(presentation, reorder), duration: frameDuration,
                                                isKeyframe: sample.isKeyframe, orientation: captured.orientation)))
    }
}
