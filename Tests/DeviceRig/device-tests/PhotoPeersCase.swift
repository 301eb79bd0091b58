#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

extension Cases {
    /// A benchmark, run only when named and with the rig's `-p`: shutter lag on vivid at
    /// 640x480 and 5 fps, the library's photos from a running session (zero shutter lag, then
    /// the next frame) beside the peers' "next frame": `ffmpeg -f v4l2 … -frames:v 1` and
    /// `gst-launch-1.0 v4l2src num-buffers=1 ! jpegenc`, started for one photo each, as an
    /// application without a photo output takes one. Lag is the request (the call, or starting
    /// the process) to the capture time (vivid's timestamp) of the frame in the photo; "file"
    /// is the request to the photo on disk.
    func photoLagBesidePeers(_ record: CaseRecord) async throws {
        for peer in ["/usr/bin/ffmpeg", "/usr/bin/gst-launch-1.0"] where access(peer, X_OK) != 0 {
            throw CaseError("\(peer) is not in the guest: run this case with run-device-tests -p")
        }
        let library = try await libraryShutterLag(record)
        var peers: [String: [(lag: Double, file: Double)]] = ["ffmpeg": [], "gstreamer": []]
        // One unmeasured run each first: GStreamer builds its plugin registry on first use.
        for round in -1..<8 {
            for peer in round % 2 == 0 ? ["ffmpeg", "gstreamer"] : ["gstreamer", "ffmpeg"] {
                let photo = report.path("\(record.name)-\(peer)-\(round < 0 ? "warm-up" : String(round)).jpg")
                let measured = try peer == "ffmpeg" ? ffmpegNextFrame(photo) : gstreamerNextFrame(photo)
                if round >= 0 { peers[peer]!.append(measured) }
            }
        }
        for (name, values) in library.sorted(by: { $0.key < $1.key }) { record.set(name, millisecondList(values)) }
        for (peer, runs) in peers.sorted(by: { $0.key < $1.key }) {
            record.set("\(peer)_lag_ms", millisecondList(runs.map(\.lag)))
            record.set("\(peer)_file_ms", millisecondList(runs.map(\.file)))
        }
        let zeroLag = library["zsl_lag_ms"] ?? []
        record.expect(!zeroLag.isEmpty && zeroLag.allSatisfy { abs($0) <= 100 + 2 },
                      "zero shutter lag took frames \(zeroLag) ms from the requests, more than half of 200 ms")
        // A next frame is after its request, at most its start-up, an interval and vivid's lead
        // later: a time outside that is a timestamp read wrongly.
        for (name, lags) in [("next frame", library["next_frame_lag_ms"] ?? []), ("ffmpeg", peers["ffmpeg"]!.map(\.lag)),
                             ("GStreamer", peers["gstreamer"]!.map(\.lag))] {
            record.expect(lags.allSatisfy { $0 > 0 && $0 < 5000 }, "\(name)'s frames were stamped \(lags) ms from the requests")
        }
    }

    /// Eight photos with zero shutter lag, then eight of the next frame, from one running
    /// session, at spread phases of the 200 ms frame interval.
    private func libraryShutterLag(_ record: CaseRecord) async throws -> [String: [Double]] {
        let camera = try V4L2Camera(path: video, width: 640, height: 480, frameRate: FrameRate(frames: 5), pixelFormat: .yuyv)
        let photos = PhotoOutput()
        let session = CaptureSession()
        try await session.configure { config in
            try config.addInput(camera)
            try config.addOutput(photos)
        }
        try await session.startRunning()
        var values: [String: [Double]] = [:]
        do {
            try await Task.sleep(for: .seconds(1))
            for index in 0..<16 {
                photos.isZeroShutterLagEnabled = index < 8
                let mode = index < 8 ? "zsl" : "next_frame"
                try await Task.sleep(for: .milliseconds(230 + 47 * (index % 8)))
                let requested = nowMilliseconds()
                let result = try await photos.capturePhoto(to: report.path("\(record.name)-library-\(index).jpg"), overwrite: true)
                record.expect(result.isZeroShutterLag == (index < 8), "photo \(index) zero shutter lag \(result.isZeroShutterLag)")
                values["\(mode)_file_ms", default: []].append(nowMilliseconds() - requested)
                values["\(mode)_lag_ms", default: []].append(milliseconds(result.shutterLag))
            }
        } catch {
            await session.stopRunning()
            throw error
        }
        await photos.finishProcessing()
        await session.stopRunning()
        return values
    }

    /// One photo by `ffmpeg`: the frame's time is its presentation time, which with `-copyts`
    /// and the demuxer's default timestamps is vivid's own, in the filter's time base.
    private func ffmpegNextFrame(_ photo: String) throws -> (lag: Double, file: Double) {
        try peerNextFrame("ffmpeg", ["/usr/bin/ffmpeg", "-hide_banner", "-nostdin", "-f", "v4l2", "-input_format", "yuyv422",
                                     "-video_size", "640x480", "-framerate", "5", "-i", video, "-frames:v", "1", "-copyts",
                                     "-fps_mode", "passthrough", "-vf", "showinfo", "-q:v", "3", "-y", photo], photo: photo) { log in
            // "config in time_base: 1/1000000, ..." then "n:   0 pts:1234567890 pts_time:..."
            guard let base = log.firstMatch(of: /config in time_base: (\d+)\/(\d+)/), let pts = log.firstMatch(of: /n: *0 pts: *(\d+)/),
                  let numerator = Double(base.1), let denominator = Double(base.2), let ticks = Double(pts.1) else { return nil }
            return ticks * numerator / denominator * 1000
        }
    }

    /// One photo by `gst-launch-1.0`: its V4L2 buffer pool logs each dequeued buffer's driver
    /// timestamp ("dequeued buffer … ts 0:01:23.456789012, …"). v4l2src itself ignores vivid's
    /// timestamps, which run ahead of the clock, and stamps its own.
    private func gstreamerNextFrame(_ photo: String) throws -> (lag: Double, file: Double) {
        try peerNextFrame("gst-launch-1.0", ["/usr/bin/gst-launch-1.0", "-q", "v4l2src", "device=\(video)", "num-buffers=1", "!",
                                             "video/x-raw,format=YUY2,width=640,height=480,framerate=5/1", "!", "jpegenc", "quality=90",
                                             "!", "filesink", "location=\(photo)"],
                          environment: ["HOME=/root", "GST_REGISTRY_FORK=no", "GST_DEBUG=v4l2bufferpool:6", "GST_DEBUG_NO_COLOR=1"],
                          photo: photo) { log in
            guard let stamp = log.firstMatch(of: /dequeued buffer .* ts (\d+):(\d\d):(\d\d)\.(\d{9}),/),
                  let hours = Double(stamp.1), let minutes = Double(stamp.2), let seconds = Double(stamp.3),
                  let nanoseconds = Double(stamp.4) else { return nil }
            return ((hours * 60 + minutes) * 60 + seconds) * 1000 + nanoseconds / 1e6
        }
    }

    /// Runs a peer for one `photo` and times it: request to the frame's driver time, which
    /// `frameTime` reads from the peer's log (CLOCK_MONOTONIC milliseconds), and to its exit.
    /// Fails unless it exited 0 with a JPEG and a frame time.
    private func peerNextFrame(_ peer: String, _ arguments: [String], environment: [String] = [], photo: String,
                               frameTime: (String) -> Double?) throws -> (lag: Double, file: Double) {
        let logPath = photo + ".log"
        unlink(photo)
        let requested = nowMilliseconds()
        let status = runProgram(arguments, environment: environment, log: logPath)
        let finished = nowMilliseconds()
        let log = (try? readFile(logPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard status == 0 else {
            throw CaseError("\(peer) exited with \(status): \(log.split(separator: "\n").suffix(5).joined(separator: " | "))")
        }
        guard let bytes = try? readFile(photo), bytes.starts(with: [0xFF, 0xD8]) else {
            throw CaseError("\(peer) exited 0 but \(photo) is not a JPEG")
        }
        guard let frame = frameTime(log) else { throw CaseError("\(peer) logged no frame time in \(logPath)") }
        return (frame - requested, finished - requested)
    }
}

/// CLOCK_MONOTONIC in milliseconds: the clock vivid stamps its frames with.
private func nowMilliseconds() -> Double { Double(MonotonicClock.now()) / 1e6 }
