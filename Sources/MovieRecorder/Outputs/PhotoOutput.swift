import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An output that captures still photos as JPEG files, as `AVCapturePhotoOutput` does.
///
/// Add it to a ``CaptureSession`` and start the session, then call
/// ``capturePhoto(to:overwrite:settings:)``: the output takes the next frame the video input
/// delivers and compresses it with libturbojpeg straight from its 4:2:0 planes. Like a camera,
/// it never rotates pixels: the output's rotation and mirroring go into the file's Exif
/// `Orientation` tag (1–8), which viewers apply. The file starts with an Exif APP1 segment
/// (replacing the JFIF APP0 segment) holding `Orientation`, `Make` and `Model`, and in its Exif
/// IFD `DateTimeOriginal` in local time with `OffsetTimeOriginal`, and the pixel dimensions.
///
/// Compressing and writing run on a dedicated thread. An output can serve a ``MovieFileOutput``'s
/// session at the same time; photos requested together share one frame.
public final class PhotoOutput: OutputService, MediaReceiver {
    /// A frame and the wall-clock second it reached the output.
    private struct CapturedFrame: Sendable {
        var frame: VideoFrame
        var unixSeconds: Int
    }

    /// Where one ``capturePhoto(to:overwrite:settings:)`` call is in waiting for a frame.
    private enum Request {
        /// Numbered, not yet waiting.
        case preparing
        /// Cancelled before it began waiting.
        case cancelled
        case waiting(CheckedContinuation<CapturedFrame, any Error>, timer: Task<Void, Never>?)
    }

    private struct State {
        var angle: Double = 0
        var mirrored = false
        var make: String?
        var model: String?
        var frameTimeout: Duration = .seconds(2)
        var sources: SourceDescription?
        var requests: [UInt64: Request] = [:]
        var lastRequestID: UInt64 = 0
        var isWaiting: Bool {
            requests.values.contains { if case .waiting = $0 { true } else { false } }
        }
    }

    private let state = LockedValue(State())

    /// Creates a photo output at angle 0, unmirrored.
    /// - Parameters:
    ///   - make: The camera's manufacturer for Exif `Make`; `nil` leaves the tag out.
    ///   - model: The camera's model for Exif `Model`; `nil` writes the video input's name.
    public init(make: String? = nil, model: String? = nil) {
        state.withLock { s in
            s.make = make
            s.model = model
        }
    }

    /// The manufacturer written as Exif `Make` when the settings name none; `nil` leaves the tag
    /// out.
    public var make: String? {
        get { state.withLock { $0.make } }
        set { state.withLock { $0.make = newValue } }
    }

    /// The model written as Exif `Model` when the settings name none; `nil` writes the video
    /// input's name (for a `TestPatternSource`, "test pattern").
    public var model: String? {
        get { state.withLock { $0.model } }
        set { state.withLock { $0.model = newValue } }
    }

    /// How long ``capturePhoto(to:overwrite:settings:)`` waits for the next frame before it
    /// throws `PhotoError.Code.timedOut`; 2 seconds by default.
    public var frameTimeout: Duration {
        get { state.withLock { $0.frameTimeout } }
        set { state.withLock { $0.frameTimeout = newValue } }
    }

    // MARK: OutputService

    /// The clockwise rotation, in degrees, written into the Exif orientation of photos.
    public var videoRotationAngle: Double { state.withLock { $0.angle } }
    /// A Boolean value that indicates whether the Exif orientation of photos mirrors the picture.
    public var isVideoMirrored: Bool { state.withLock { $0.mirrored } }

    /// Sets the rotation written into photos requested from now on; the pixels are never rotated.
    /// - Throws: `OrientationError` for an angle other than 0, 90, 180 or 270.
    public func setVideoRotationAngle(_ angle: Double) throws(OrientationError) {
        _ = try VideoOrientation(rotationAngle: angle)
        state.withLock { $0.angle = angle }
    }

    /// Sets whether photos requested from now on are marked as mirrored in their Exif
    /// orientation.
    public func setVideoMirrored(_ mirrored: Bool) {
        state.withLock { $0.mirrored = mirrored }
    }

    // MARK: Capturing

    /// Captures the next frame the session delivers as a JPEG file at `path`.
    ///
    /// The orientation is the output's rotation angle and mirroring when the call is made; the
    /// pixels are stored as captured, so ``PhotoResult/width`` and ``PhotoResult/height`` are
    /// the frame's. `DateTimeOriginal` is the local time the frame reached the output.
    /// - Parameters:
    ///   - path: Where to write; its directory must exist.
    ///   - overwrite: Replace an existing file; without it an existing file is an error.
    ///   - settings: The quality, and the make and model to record.
    /// - Returns: The file's path, size and the orientation it records.
    /// - Throws: `PhotoError`: not connected to a running session with a video input
    ///   (`PhotoError.Code.notConnected`), no frame within ``frameTimeout``
    ///   (`PhotoError.Code.timedOut`), a quality outside 1–100 or a compression failure
    ///   (`PhotoError.Code.encodingFailed`), the file exists (`PhotoError.Code.fileExists`)
    ///   or cannot be written (`PhotoError.Code.fileError`). `CancellationError` when the
    ///   task is cancelled while waiting for the frame.
    public func capturePhoto(to path: String, overwrite: Bool = false,
                             settings: PhotoSettings = PhotoSettings()) async throws -> PhotoResult {
        guard (1...100).contains(settings.quality) else {
            throw PhotoError(.encodingFailed, "PhotoOutput: JPEG quality \(settings.quality) is out of range; use 1 to 100")
        }
        let (sources, orientation, make, model, timeout) = state.withLock { s in
            (s.sources, (try? VideoOrientation(rotationAngle: s.angle, isMirrored: s.mirrored)) ?? .up,
             settings.make ?? s.make, settings.model ?? s.model, s.frameTimeout)
        }
        guard let video = sources?.video else { throw Self.notConnected }
        if !overwrite {
            // A stat can block on a slow file system: not on the cooperative pool.
            let exists = try await runOnDedicatedThread(name: "movrec-photo") { RandomAccessFile.exists(path) }
            if exists { throw Self.fileExists(path) }
        }
        let captured = try await nextFrame(timeout: timeout)
        let quality = settings.quality
        return try await runOnDedicatedThread(name: "movrec-photo") {
            let frame = captured.frame
            let jpeg = try JPEGEncoder.encode(frame, quality: quality, owner: "PhotoOutput")
            let time = Self.exifTime(unixSeconds: captured.unixSeconds)
            let exif = ExifMetadata(orientation: orientation.exifOrientation, make: make, model: model ?? video.name,
                                    dateTimeOriginal: time.dateTime, offsetTimeOriginal: time.offset,
                                    pixelWidth: frame.width, pixelHeight: frame.height)
            guard let segment = exif.app1Segment() else {
                throw PhotoError(.encodingFailed, "PhotoOutput: the Exif metadata does not fit in a 64 KB APP1 segment; shorten the make and model")
            }
            guard let bytes = JPEGHeader.insertingFirstSegment(segment, replacingJFIFIn: jpeg) else {
                throw PhotoError(.encodingFailed, "PhotoOutput: libturbojpeg's output is not a JPEG stream (no SOI, or a header segment runs past its end)")
            }
            try Self.write(bytes, to: path, overwrite: overwrite)
            return PhotoResult(path: path, width: frame.width, height: frame.height, orientation: orientation,
                               byteCount: bytes.count)
        }
    }

    private static let notConnected = PhotoError(
        .notConnected, "PhotoOutput: not connected to a running capture session with a video input; add the output and start the session first")

    private static func fileExists(_ path: String) -> PhotoError {
        PhotoError(.fileExists, "PhotoOutput: \(path) exists; choose another name, or pass overwrite: true")
    }

    /// Writes the photo, creating the file only if it is new unless `overwrite`; removes what
    /// it created when a write fails.
    private static func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws(PhotoError) {
        let file: RandomAccessFile
        do {
            file = try RandomAccessFile(path: path, mode: overwrite ? .createOrTruncate : .createNew)
        } catch let error as FileError where error.code == .alreadyExists {
            throw fileExists(path)
        } catch {
            throw PhotoError(.fileError, "PhotoOutput: \(error)")
        }
        do {
            try bytes.withUnsafeBytes { try file.write($0, at: 0) }
            try file.close()
        } catch {
            try? file.close()
            try? RandomAccessFile.remove(path)
            throw PhotoError(.fileError, "PhotoOutput: \(error)")
        }
    }

    /// The Exif date and time (`YYYY:MM:DD HH:MM:SS`, local time) and its offset from UTC
    /// (`+HH:MM`) for a moment in seconds since 1970 (the C function `localtime_r`).
    static func exifTime(unixSeconds: Int) -> (dateTime: String, offset: String) {
        var seconds = time_t(unixSeconds)
        var local = tm()
        localtime_r(&seconds, &local)
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let dateTime = digits(Int(local.tm_year) + 1900, 4) + ":" + digits(Int(local.tm_mon) + 1, 2) + ":"
            + digits(Int(local.tm_mday), 2) + " " + digits(Int(local.tm_hour), 2) + ":" + digits(Int(local.tm_min), 2)
            + ":" + digits(Int(local.tm_sec), 2)
        let minutes = Int(local.tm_gmtoff) / 60
        let offset = (minutes < 0 ? "-" : "+") + digits(abs(minutes) / 60, 2) + ":" + digits(abs(minutes) % 60, 2)
        return (dateTime, offset)
    }

    // MARK: Waiting for a frame

    /// Waits for the next frame the session delivers, up to `timeout`.
    private func nextFrame(timeout: Duration) async throws -> CapturedFrame {
        let id = state.withLock { s in
            s.lastRequestID += 1
            s.requests[s.lastRequestID] = .preparing
            return s.lastRequestID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CapturedFrame, any Error>) in
                let refusal: (any Error)? = state.withLock { s in
                    if case .cancelled = s.requests[id] {
                        s.requests[id] = nil
                        return CancellationError()
                    }
                    guard s.sources?.video != nil else {
                        s.requests[id] = nil
                        return Self.notConnected
                    }
                    s.requests[id] = .waiting(continuation, timer: nil)
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                    return
                }
                // A file source waits for an output to consume media: this one now does.
                state.withLock { $0.sources }?.wakeWaitingSources()
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    self?.finish(id, throwing: PhotoError(
                        .timedOut, "PhotoOutput: no video frame arrived within \(timeout); check that the session's video input is delivering"))
                }
                let isWaiting = state.withLock { s in
                    guard case .waiting(let continuation, _) = s.requests[id] else { return false }
                    s.requests[id] = .waiting(continuation, timer: timer)
                    return true
                }
                if !isWaiting { timer.cancel() }
            }
        } onCancel: {
            let isPreparing = state.withLock { s in
                guard case .preparing = s.requests[id] else { return false }
                s.requests[id] = .cancelled
                return true
            }
            if !isPreparing { finish(id, throwing: CancellationError()) }
        }
    }

    /// Ends one waiting request with an error, if it is still waiting.
    private func finish(_ id: UInt64, throwing error: any Error) {
        let request = state.withLock { s -> Request? in
            guard case .waiting = s.requests[id] else { return nil }
            return s.requests.removeValue(forKey: id)
        }
        if case .waiting(let continuation, let timer) = request {
            timer?.cancel()
            continuation.resume(throwing: error)
        }
    }

    /// Removes and returns every waiting request.
    private func takeWaiting() -> [(CheckedContinuation<CapturedFrame, any Error>, Task<Void, Never>?)] {
        state.withLock { s in
            var taken: [(CheckedContinuation<CapturedFrame, any Error>, Task<Void, Never>?)] = []
            for (id, request) in s.requests {
                if case .waiting(let continuation, let timer) = request {
                    taken.append((continuation, timer))
                    s.requests[id] = nil
                }
            }
            return taken
        }
    }

    private func failWaiting(_ error: PhotoError) {
        for (continuation, timer) in takeWaiting() {
            timer?.cancel()
            continuation.resume(throwing: error)
        }
    }

    // MARK: MediaReceiver

    /// The session this output belongs to.
    let sessionClaim = SessionClaim()

    func connect(_ sources: SourceDescription) {
        state.withLock { $0.sources = sources }
    }

    func disconnect(_ reason: DisconnectReason) {
        state.withLock { $0.sources = nil }
        let why = switch reason {
        case .sessionStopped: "the capture session stopped"
        case .removed: "the output was removed from the capture session"
        case .inputsChanged: "the capture session changed its inputs"
        }
        failWaiting(PhotoError(.notConnected, "PhotoOutput: \(why) before a video frame arrived"))
    }

    func receive(_ event: VideoSourceEvent) {
        switch event {
        case .frame(let frame):
            guard state.withLock({ $0.isWaiting }) else { return }
            let captured = CapturedFrame(frame: frame, unixSeconds: SystemClock.unixSeconds())
            for (continuation, timer) in takeWaiting() {
                timer?.cancel()
                continuation.resume(returning: captured)
            }
        case .interrupted(let reason):
            failWaiting(PhotoError(.notConnected, "PhotoOutput: the video input was lost before a frame arrived: \(reason)"))
        case .ended:
            failWaiting(PhotoError(.notConnected, "PhotoOutput: the video input ended before a frame arrived"))
        case .dropped, .corrupted:
            break
        }
    }

    func receive(_ event: AudioSourceEvent) {}

    /// A Boolean value that indicates whether a photo is waiting for a frame, so a file source
    /// reads its next frame for it.
    var isConsumingMedia: Bool { state.withLock { $0.isWaiting } }
}
