import MovieContainer
import MoviePlatform
import MovieCapture

/// One RTSP path fed from the session's encodes: a bounded queue the encoding threads offer to,
/// and a thread of its own that mounts the path when the formats are known (again when they
/// change) and pushes each access unit into the server.
///
/// ```
/// encoding thread ──offer──▶ queue (64) ──▶ movrec-rtsp-feed ──push──▶ appsrc ──▶ payloader ──▶ clients
/// ```
///
/// When the queue is full an access unit is dropped, and video then waits for the next
/// keyframe, so a client never decodes a picture whose reference it lacks.
final class RTSPPathFeeder: Sendable {
    private struct State {
        var waitingForKeyframe = false
        var dropped = 0
        var tokens: [(EncodedStreamTap, Int)] = []
        /// The path's number and whether it carries audio, once mounted.
        var mounted: (number: Int, hasAudio: Bool)?
    }

    let path: String
    private let server: GStreamerRTSPServer
    private let queue = BoundedQueue<EncodedStreamEvent>(capacity: 64)
    private let state = LockedValue(State())
    private let thread: LockedValue<DedicatedThread?> = LockedValue(nil)
    private let expectsAudio: Bool

    /// Feeds `path` with the video of `video` and the audio of `audio` (nil for none).
    init(path: String, server: GStreamerRTSPServer, video: EncodedStreamTap, audio: EncodedStreamTap?) {
        self.path = path
        self.server = server
        expectsAudio = audio != nil
        let started = DedicatedThread(name: "movrec-rtsp-feed") { [self] in run() }
        thread.withLock { $0 = started }
        let videoToken = video.subscribe(wants: { [weak self] in $0 == .video && self?.wants(.video) == true }) { [weak self] event in
            if case .audioFormat = event { return }
            if case .sample(let sample) = event, sample.kind != .video { return }
            self?.offer(event)
        }
        var tokens = [(video, videoToken)]
        if let audio {
            tokens.append((audio, audio.subscribe(wants: { [weak self] in $0 == .audio && self?.wants(.audio) == true }) { [weak self] event in
                if case .videoFormat = event { return }
                if case .sample(let sample) = event, sample.kind != .audio { return }
                self?.offer(event)
            }))
        }
        state.withLock { $0.tokens = tokens }
    }

    /// Whether a client watches the path's stream of `kind`; before the path is mounted, yes:
    /// the encode's first access unit brings the format the path needs.
    private func wants(_ kind: EncodedStreamSample.Kind) -> Bool {
        guard let mounted = state.withLock({ $0.mounted }) else { return true }
        if kind == .audio && !mounted.hasAudio { return false }
        return server.isWatched(path: mounted.number, stream: kind == .video ? 0 : 1)
    }

    /// Access units dropped because the feeder was behind.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Called on an encoding thread: never waits.
    private func offer(_ event: EncodedStreamEvent) {
        let skip = state.withLock { s -> Bool in
            guard case .sample(let sample) = event, sample.kind == .video else { return false }
            if s.waitingForKeyframe && !sample.isKeyframe { return true }
            s.waitingForKeyframe = false
            return false
        }
        if skip || queue.offer(event) { return }
        state.withLock { s in
            s.dropped += 1
            if case .sample(let sample) = event, sample.kind == .video { s.waitingForKeyframe = true }
        }
    }

    private func run() {
        var video: EncodedVideoFormat?
        var audio: EncodedAudioFormat??
        var mounted: (number: Int, video: EncodedVideoFormat, audio: EncodedAudioFormat?)?
        while let event = queue.pop() {
            switch event {
            case .videoFormat(let format): video = format
            case .audioFormat(let format): audio = .some(format)
            case .sample(let sample):
                guard let mounted else { continue }
                if sample.kind == .audio && mounted.audio == nil { continue }
                _ = server.push(path: mounted.number, stream: sample.kind == .video ? 0 : 1, bytes: Self.withOrientation(sample, mounted.video),
                                presentation: sample.presentation, decode: sample.decode, duration: sample.duration,
                                keyframe: sample.isKeyframe)
                continue
            }
            // A format arrived: mount once both are known, again when either changed.
            guard let video, !expectsAudio || audio != nil else { continue }
            let audioFormat = audio ?? nil
            if let mounted, mounted.video == video, mounted.audio == audioFormat { continue }
            let launch = RTSPLaunch.description(video: video, audio: audioFormat)
            if let number = server.mount(path, launch: launch, video: audioFormat == nil ? [true] : [true, false]) {
                mounted = (number, video, audioFormat)
                state.withLock { $0.mounted = (number, audioFormat != nil) }
            } else {
                MovieRecorderLogging.log(.error, "rtsp", "RTSPServer: \(path) could not be served: the server has 8 paths already")
            }
        }
    }

    /// A keyframe's access unit with a display-orientation SEI in front when the picture is to
    /// be shown turned or mirrored: RTP has no track matrix. It holds until the next keyframe.
    private static func withOrientation(_ sample: EncodedStreamSample, _ format: EncodedVideoFormat) -> [UInt8] {
        guard sample.kind == .video, sample.isKeyframe, sample.orientation != .up else { return sample.bytes }
        let sei = format.codec == .h264 ? DisplayOrientationSEI.h264(sample.orientation) : DisplayOrientationSEI.hevc(sample.orientation)
        var unit = ByteWriter(capacity: 4 + sei.count + sample.bytes.count)
        unit.write(UInt32(sei.count))
        unit.write(contentsOf: sei)
        unit.write(contentsOf: sample.bytes)
        return unit.bytes
    }

    /// Stops taking access units and ends the thread; blocks until it has, so call it on a
    /// dedicated thread.
    func stop() {
        let tokens = state.withLock { s in defer { s.tokens = [] }; return s.tokens }
        for (tap, token) in tokens { tap.unsubscribe(token) }
        queue.close()
        thread.withLock { t in defer { t = nil }; return t }?.join()
    }
}
