import MovieContainer

/// The slowest (best-compressing) x265 preset that keeps up with a live source, from speeds
/// measured on two cores, scaled to the processors present.
package struct HEVCPresetChoice: Sendable {
    /// The preset chosen: the slowest that keeps up, or `ultrafast` when none does.
    package var preset: String
    /// The frames per second the preset is expected to encode at this size here.
    package var expectedFramesPerSecond: Double
    /// The source's frames per second.
    package var requiredFramesPerSecond: Double

    /// Whether the preset is expected to keep up, with a fifth to spare for the rest of the
    /// recording (capture, audio, writing).
    package var keepsUp: Bool { expectedFramesPerSecond >= requiredFramesPerSecond * 1.2 }

    /// Megapixels a second each preset encodes on two cores of this project's machine, slowest
    /// first: x265 3.5 on `testsrc2` with heavy noise, as a dim camera's sensor gives it (49 fps
    /// at 720p with ultrafast). Benchmarks case l's lighter grain encodes about twice as fast;
    /// the slower figures keep a noisy camera from dropping frames.
    static let measured: [(preset: String, megapixelsPerSecond: Double)] = [
        ("veryfast", 21), ("superfast", 27), ("ultrafast", 40),
    ]

    /// The choice for pictures of `width`×`height` at `frameRate` on `processorCount` processors.
    package static func choose(width: Int, height: Int, frameRate: FrameRate, processorCount: Int) -> HEVCPresetChoice {
        let scale = Double(max(1, processorCount)) / 2
        let pixels = Double(width * height) / 1e6
        let required = Double(frameRate.frames) / Double(max(1, frameRate.seconds))
        let choices = measured.map {
            HEVCPresetChoice(preset: $0.preset, expectedFramesPerSecond: $0.megapixelsPerSecond * scale / max(pixels, 0.01),
                             requiredFramesPerSecond: required)
        }
        return choices.first(where: \.keepsUp) ?? choices.last!
    }
}
