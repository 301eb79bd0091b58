import MoviePlatform

/// Measures how fast an audio device's clock runs against ``MonotonicClock``: from the frame
/// position and capture time of each buffer, the device's true sample rate and the capture time
/// of any frame.
///
/// The estimate is a least-squares line through the points of the last minute (time against
/// frame position), not a delay-locked loop. A loop moves its phase by a fixed share of every
/// error, so a buffer stamped late pulls it, and its settling depends on a loop gain; a line
/// fitted over a window weighs one point by one over the number of points, its slope error
/// falls with the window's length to the power 1.5 (within 5 ppm after 30 s of 20 ms buffers
/// with a millisecond of jitter), and a point far from the line (more than six times the
/// typical residual, at least 2 ms) is left out before it counts. A run of such points (half
/// a second) is a step of the device's clock, and the fit starts again from it.
///
/// Positions are the caller's: the frames delivered so far. Across a gap (lost frames, a pause)
/// the caller takes the next position from ``frame(at:)``, so the line goes on across it.
package struct AudioClockEstimator: Sendable {
    /// One buffer: the position of its first frame and that frame's capture time.
    private struct Point {
        var frame: Double
        var time: Double
    }

    /// The rate the device was asked for, frames per second.
    package let nominalRate: Double
    /// How much history the fit uses, in seconds.
    package let window: Double
    private var points: [Point] = []
    private var head = 0
    /// The fitted line: the time at `meanFrame`, and nanoseconds per frame.
    private var meanFrame = 0.0
    private var meanTime = 0.0
    private var slope: Double
    /// The typical distance of an accepted point from the line (an exponential mean), and how
    /// many points in a row were left out.
    private var residual = 0.0
    /// When the points left out in a row began, if the last point was left out.
    private var rejectedSince: Double?
    /// Whether the points taken before the line could judge them were screened once it could.
    private var screened = false
    /// Points the fit left out, in all.
    package private(set) var rejectedCount = 0

    /// Starts with no points: until the first, the line is the nominal rate.
    package init(nominalRate: Double, window: Double = 60) {
        self.nominalRate = nominalRate
        self.window = window
        slope = 1e9 / nominalRate
    }

    /// The seconds between the oldest and the newest point in the fit.
    package var span: Double {
        guard let first = points[head...].first, let last = points.last else { return 0 }
        return (last.time - first.time) / 1e9
    }

    /// The device's measured rate in frames per second of ``MonotonicClock``, once the fit spans
    /// two seconds; the nominal rate before.
    package var rate: Double { span >= 2 ? 1e9 / slope : nominalRate }

    /// How many parts per million the device's clock runs fast (positive) or slow, once the fit
    /// spans `minimumSpan` seconds.
    package func drift(minimumSpan: Double = 10) -> Double? {
        span >= minimumSpan ? (rate / nominalRate - 1) * 1e6 : nil
    }

    /// The capture time the line gives `frame`, in nanoseconds on ``MonotonicClock``.
    package func time(ofFrame frame: Int64) -> Double {
        meanTime + slope * (Double(frame) - meanFrame)
    }

    /// Adds a buffer whose first frame is at `frame` and was captured at `time`.
    /// - Returns: Whether the point was taken into the fit (false for one far from the line).
    @discardableResult
    package mutating func add(frame: Int64, time: UInt64) -> Bool {
        let point = Point(frame: Double(frame), time: Double(time))
        if span >= 2 {
            let distance = abs(point.time - self.time(ofFrame: frame))
            if distance > max(2_000_000, 6 * residual) {
                rejectedCount += 1
                let since = rejectedSince ?? point.time
                rejectedSince = since
                guard point.time - since >= 500_000_000 else { return false }
                restart()
            } else {
                residual += (distance - residual) / 64
            }
        }
        rejectedSince = nil
        points.append(point)
        while let first = points[head...].first, point.time - first.time > window * 1e9 { head += 1 }
        if head > 4096 {
            points.removeFirst(head)
            head = 0
        }
        fit()
        if !screened && span >= 2 { screen() }
        return true
    }

    /// Leaves out the points of the first two seconds that lie far from the line they made
    /// (more than six times their median distance, at least 2 ms), and fits again.
    private mutating func screen() {
        screened = true
        let distances = points[head...].map { abs($0.time - time(ofFrame: Int64($0.frame))) }
        let median = distances.sorted()[distances.count / 2]
        let limit = max(2_000_000, 6 * median)
        let kept = zip(points[head...], distances).filter { $0.1 <= limit }.map(\.0)
        rejectedCount += distances.count - kept.count
        points = kept
        head = 0
        residual = median
        fit()
    }

    /// The position the line gives capture time `time`: where a buffer captured then starts,
    /// after frames that were never delivered (an overrun, a pause).
    package func frame(at time: UInt64) -> Int64 {
        Int64(((Double(time) - meanTime) / slope + meanFrame).rounded())
    }

    /// Forgets every point: the device's clock stepped.
    private mutating func restart() {
        points.removeAll(keepingCapacity: true)
        head = 0
        residual = 0
        rejectedSince = nil
        screened = false
    }

    /// Fits the line through the window's points, relative to the first so the sums stay small.
    private mutating func fit() {
        let window = points[head...]
        guard let origin = window.first else { return }
        let count = Double(window.count)
        var sumFrame = 0.0, sumTime = 0.0
        for point in window {
            sumFrame += point.frame - origin.frame
            sumTime += point.time - origin.time
        }
        let frameMean = sumFrame / count, timeMean = sumTime / count
        var sxx = 0.0, sxy = 0.0
        for point in window {
            let x = point.frame - origin.frame - frameMean
            sxx += x * x
            sxy += x * (point.time - origin.time - timeMean)
        }
        meanFrame = origin.frame + frameMean
        meanTime = origin.time + timeMean
        // Under two seconds the slope is too uncertain to use: the line keeps the nominal rate
        // through the points' mean. A slope more than 10% off the nominal one (timestamps gone
        // wrong) is not a crystal's: the nominal rate stays, so every figure stays finite.
        let nominal = 1e9 / nominalRate
        let fitted = sxx > 0 ? sxy / sxx : .nan
        slope = span >= 2 && fitted.isFinite && abs(fitted / nominal - 1) < 0.1 ? fitted : nominal
    }
}
