import MovieCapture
import MovieEncoding

/// A second encoder with the recording's settings that encodes two frames, an IDR and the
/// frame after it, and drains at once, so their sizes are known a frame later instead of after
/// the recording encoder's delay. ``SegmentSizeEstimator`` predicts the first file with them
/// until that encoder's own pictures come out. It costs two frames' encoding, once per
/// recording, and only when a small segment size needs it.
struct TrialEncode {
    /// The frames encoded: the IDR and one more, the fewest that give both sizes.
    static let frameCount = 2
    /// The keyframe's size and the other pictures' average, in bytes, once the last frame is
    /// taken; nil before, or when the encoder made only keyframes.
    private(set) var sizes: (keyframe: Int, picture: Int)?
    private let encoder: any VideoEncoder
    private var samples: [EncodedVideoSample] = []
    private var taken = 0

    /// Opens the encoder.
    /// - Throws: ``EncoderError`` from opening.
    init(format: VideoFormat, timescale: UInt32, settings: VideoEncoderSettings) throws {
        encoder = try makeVideoEncoder(format: format, timescale: timescale, settings: settings)
    }

    /// Encodes `frame` (the first as an IDR); with the last, drains and closes the encoder.
    /// - Returns: Whether that was the last frame, and ``sizes`` is final.
    /// - Throws: ``EncoderError`` from encoding; ``close()`` the trial then.
    mutating func take(_ frame: VideoFrame, presentationTime: Int64) throws -> Bool {
        if let sample = try encoder.encode(frame, presentationTime: presentationTime, forceKeyframe: taken == 0) { samples.append(sample) }
        taken += 1
        guard taken == Self.frameCount else { return false }
        samples += try encoder.flush()
        encoder.close()
        let pictures = samples.filter { !$0.isKeyframe }
        if let keyframe = samples.first(where: \.isKeyframe), !pictures.isEmpty {
            sizes = (keyframe.data.count, pictures.reduce(0) { $0 + $1.data.count } / pictures.count)
        }
        return true
    }

    /// Closes the encoder; after the last frame, which closed it, it does nothing.
    func close() { encoder.close() }
}
