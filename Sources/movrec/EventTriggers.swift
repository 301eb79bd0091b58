import MovieCapture
import MovieRecorder

/// What saves `movrec record`'s event clips besides SIGUSR1: an impact on the accelerometer.
enum EventTriggers {
    /// With `--event-on-impact`, a detector on the `--gravity` accelerometer (or the first one
    /// found), started: it says whether it reads the device's buffer or polls, and each impact
    /// saves a clip and prints a line.
    static func startImpactDetector(_ options: RecordOptions, gravity: (any GravitySource)?,
                                    movie: MovieFileOutput) throws -> ImpactDetector? {
        guard let events = options.events, let threshold = events.impactThreshold else { return nil }
        let source: any GravitySource = try gravity as? IIOAccelerometer ?? IIOAccelerometer.find(pollingInterval: .milliseconds(10))
        let detector = ImpactDetector(source: source, threshold: threshold)
        let postRoll = events.postRoll
        try detector.start { impact in
            standardError("movrec: an impact of \(Double(Int(impact.change * 10)) / 10) g")
            do {
                try movie.saveEventClip(postRoll: postRoll)
            } catch {
                standardError("movrec: \(error)")
            }
        }
        if let accelerometer = source as? IIOAccelerometer, let method = accelerometer.readingMethod {
            standardError("movrec: impacts from \(accelerometer.path) through \(method)")
        }
        return detector
    }
}
