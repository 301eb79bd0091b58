import MovieContainer
import MoviePlatform
import MovieCapture
internal import CX264

/// One encoded picture: an access unit of length-prefixed NAL units and its times.
package struct EncodedVideoSample: Sendable {
    package var data: [UInt8]
    /// Presentation time in the track's ticks.
    package var presentationTime: Int64
    /// Decode time in the track's ticks; negative for the first frames when B-frames delay
    /// output.
    package var decodeTime: Int64
    package var isKeyframe: Bool
}
