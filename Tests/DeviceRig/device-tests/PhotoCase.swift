#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

extension Cases {
    /// Photos from vivid at 5 fps with its own timestamps, while the same session records a
    /// movie: four with zero shutter lag, each within half a frame interval of its request, then
    /// four of the next frame; the movie loses no frame.
    func photoZeroShutterLag(_ record: CaseRecord) async throws {
        let camera = try V4L2Camera(path: video, width: 640, height: 480, frameRate: FrameRate(frames: 5), pixelFormat: .yuyv)
        let movie = MovieFileOutput(encoderSettings: encoder)
        let photos = PhotoOutput()
        photos.isResponsiveCaptureEnabled = true
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(camera)
            try config.addOutput(movie)
            try config.addOutput(photos)
        }
        try await session.startRunning()
        try await movie.startRecording(to: report.path(record.name + ".mov"))
        var zeroLag: [Double] = [], nextFrame: [Double] = []
        do {
            try await Task.sleep(for: .seconds(1))
            for index in 0..<8 {
                if index == 4 { photos.isZeroShutterLagEnabled = false }
                // Requests at spread phases of the 200 ms interval.
                try await Task.sleep(for: .milliseconds(230 + 47 * index))
                let result = try await photos.capturePhoto(to: report.path("\(record.name)-\(index).jpg"), overwrite: true)
                let lag = milliseconds(result.shutterLag)
                if index < 4 { zeroLag.append(lag) } else { nextFrame.append(lag) }
                record.expect(result.isZeroShutterLag == (index < 4), "photo \(index) zero shutter lag \(result.isZeroShutterLag)")
            }
        } catch {
            _ = await movie.stopRecording()
            await session.stopRunning()
            throw error
        }
        let result = await movie.stopRecording()
        await photos.finishProcessing()
        await session.stopRunning()
        record.set("zsl_lag_ms", zeroLag.map { String(Int($0.rounded())) }.joined(separator: ","))
        record.set("next_frame_lag_ms", nextFrame.map { String(Int($0.rounded())) }.joined(separator: ","))
        record.set("movie_frames", result?.frameCount ?? 0)
        record.set("movie_dropped", result?.droppedFrameCount ?? -1)
        record.expect(zeroLag.allSatisfy { abs($0) <= 100 + 2 }, "zero shutter lag took frames \(zeroLag) ms from the requests, more than half of 200 ms")
        // vivid stamps a frame ahead of the moment it can be dequeued (by 6–85 ms here), so the
        // first frame to arrive after a request may carry a time up to an interval and that lead
        // later.
        record.expect(nextFrame.allSatisfy { $0 > 0 && $0 <= 400 }, "the next frames came \(nextFrame) ms after the requests")
        record.expect(result?.isPlayable == true, "the movie is not playable")
        record.expect(result?.droppedFrameCount == 0, "the movie dropped \(result?.droppedFrameCount ?? -1) frames while photos were taken")
    }
}
