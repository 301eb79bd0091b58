import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// One live stream in progress: the small picture's H.264 encoder, the AAC encoder and the CMAF
/// writer, on a thread of their own, publishing chunks into the hub.
///
/// ```
/// capture thread ──scale, offer──▶ items (bounded, 4) ──▶ live thread ──▶ hub ──▶ readers
/// audio capture thread ──offer──▶ ┘                                    └──▶ LiveStreamOutput.segments
/// ```
///
/// The capture thread scales each picture into a copy of its own before offering it, so the
/// stream never holds a camera buffer; when the live thread is behind the picture is dropped
/// and counted. Nothing here ever waits on the recording or on a reader.
final class LiveStreamPipeline: Sendable {
    enum Item {
        case frame(VideoFrame)
        case audio(AudioBuffer)
    }

    /// Pictures (small copies) and audio buffers: a few of each.
    let items = BoundedQueue<Item>(capacity: 12)
    let width: Int
    let height: Int
    private let thread: LockedValue<DedicatedThread?> = LockedValue(nil)
    private let settings: LiveStreamSettings
    private let video: VideoFormat
    private let audio: PCMFormat?
    /// Set by the live thread once libyuv and the encoders are open: until then, and if they
    /// cannot open, pictures and audio are not taken.
    private let isReady = LockedValue(false)
    private let onFailure: @Sendable (LiveViewError) -> Void
    private let orientation: @Sendable () -> VideoOrientation
    private let deliver: @Sendable (LiveSegment) -> Void
    private let hub: LiveStreamHub
    private let tap: EncodedStreamTap
    let statistics = LockedValue(Statistics())
    /// The hub's number for this stream, once it began; only the live thread sets it.
    private let streamID = LockedValue<Int?>(nil)

    struct Statistics {
        var streamedFrames = 0
        var droppedFrames = 0

        static func + (l: Self, r: Self) -> Self {
            Statistics(streamedFrames: l.streamedFrames + r.streamedFrames, droppedFrames: l.droppedFrames + r.droppedFrames)
        }
    }

    /// Prepares a stream of `video` (and `audio`, when the settings include it); nothing is
    /// opened until ``start()``, whose thread opens libyuv and the encoders (the session calls
    /// this from its actor, where nothing may block) and reports a failure to `onFailure`.
    init(settings: LiveStreamSettings, video: VideoFormat, audio: PCMFormat?, hub: LiveStreamHub, tap: EncodedStreamTap,
         orientation: @escaping @Sendable () -> VideoOrientation,
         deliver: @escaping @Sendable (LiveSegment) -> Void, onFailure: @escaping @Sendable (LiveViewError) -> Void) {
        let size = PictureScaler.size(fitting: video.width, video.height, within: (settings.maximumWidth, settings.maximumHeight))
        width = size.width
        height = size.height
        self.settings = settings
        self.video = video
        self.audio = settings.includesAudio ? audio : nil
        self.hub = hub
        self.tap = tap
        self.orientation = orientation
        self.deliver = deliver
        self.onFailure = onFailure
    }

    /// How far the live view gives way to a recording under pressure.
    let shed = LoadShedControl()

    /// Starts the live thread.
    func start() {
        let started = DedicatedThread(name: "movrec-live") { [self] in run() }
        thread.withLock { $0 = started }
    }

    /// Ends the stream: the live thread finishes what is queued and ends the hub's stream.
    /// Returns at once; ``join()`` waits for the thread.
    func stop() { items.close() }

    /// Waits for the live thread to finish; blocks, so call it on a dedicated thread.
    func join() { thread.withLock { $0 }?.join() }

    /// Called on the capture thread: scales the picture into a copy (turned, with
    /// ``LiveStreamSettings/turnsPictures``) and offers it.
    func receive(_ frame: VideoFrame) {
        guard isReady.withLock({ $0 }), !settings.encodesOnDemand || tap.wants(.video) else { return }
        guard shed.takesPicture() else { return }  // giving way to a recording under pressure
        var small = PictureScaler.scaled(frame, width: width, height: height)
        if settings.turnsPictures { small = PictureScaler.turned(small, to: orientation()) }
        let accepted = items.offer(.frame(small))
        statistics.withLock { accepted ? () : ($0.droppedFrames += 1) }
    }

    /// Called on the audio capture thread.
    func receive(_ buffer: AudioBuffer) {
        guard audio != nil, isReady.withLock({ $0 }), !settings.encodesOnDemand || tap.wants(.audio) || tap.wants(.video) else { return }
        _ = items.offer(.audio(buffer))  // a buffer lost here becomes silence on the live thread
    }

    private func run() {
        // Below the recording's threads: when the processor is short, the live view waits.
        ThreadPriority.lower(by: 5)
        var size = encodedSize(for: orientation())
        guard var encoder = open(size) else { return }
        isReady.withLock { $0 = true }
        while let item = items.pop() {
            switch item {
            case .frame(let frame):
                if (frame.width, frame.height) != size {
                    // Turned in pixels between portrait and landscape: a stream of the new size.
                    publish(encoder.finish(), size: size)
                    endStream()
                    size = (frame.width, frame.height)
                    guard let reopened = open(size) else { return }
                    encoder = reopened
                }
                publish(encoder.encode(frame, orientation: settings.turnsPictures ? .up : orientation()), size: size)
            case .audio(let buffer): publish(encoder.encode(buffer), size: size)
            }
        }
        publish(encoder.finish(), size: size)
        endStream()
    }

    /// The size the encoder takes: the scaled picture's, its sides swapped when it is turned a
    /// quarter in pixels.
    private func encodedSize(for orientation: VideoOrientation) -> (Int, Int) {
        settings.turnsPictures && orientation.rotationAngle % 180 == 90 ? (height, width) : (width, height)
    }

    private func endStream() {
        if let id = streamID.withLock({ s in defer { s = nil }; return s }) { hub.end(stream: id) }
    }

    /// Opens libyuv and the encoders for pictures of `size`; reports a failure and returns nil.
    private func open(_ size: (Int, Int)) -> LiveStreamEncoder? {
        do throws(LiveViewError) {
            if let failure = PictureScaler.load() { throw LiveViewError(.libraryMissing, "LiveStreamOutput: scaling the picture: \(failure)") }
            return try LiveStreamEncoder(settings: settings, video: video, size: size, audio: audio, tap: tap)
        } catch {
            MovieRecorderLogging.log(.error, "live", error.message)
            onFailure(error)
            return nil
        }
    }

    /// Hands what the encoders made to the hub and the application, outside every lock.
    private func publish(_ events: [LiveStreamOutputEvent], size: (Int, Int)) {
        for event in events {
            if case .begin(let start) = event {
                let id = hub.begin(start, width: size.0, height: size.1)
                streamID.withLock { $0 = id }
                continue
            }
            guard let id = streamID.withLock({ $0 }) else { continue }
            switch event {
            case .begin: break
            case .initialization(let bytes):
                hub.addInitialization(bytes, stream: id)
                deliver(LiveSegment(kind: .initialization, data: bytes, report: nil))
            case .chunk(let chunk):
                hub.append(chunk, stream: id)
                statistics.withLock { $0.streamedFrames += 1 }
            case .partComplete(let part):
                hub.completePart(stream: id)
                deliver(part)
            case .segmentComplete:
                hub.completeSegment(stream: id)
            case .failed(let message):
                MovieRecorderLogging.log(.error, "live", message)
            }
        }
    }
}

/// What the live thread's encoding produced, published in order outside the lock.
enum LiveStreamOutputEvent {
    case begin(LiveStreamStart)
    case initialization([UInt8])
    case chunk(LiveChunk)
    case partComplete(LiveSegment)
    /// The segment in progress holds all it will: the next picture starts a new one.
    case segmentComplete
    case failed(String)
}

/// What a new stream tells its readers before its first chunk.
struct LiveStreamStart {
    var codecs: String
    /// The codecs of the stream without its audio.
    var pictureCodecs: String
    /// Initialization segments with the identity matrix (the preview page turns the element).
    var pageInitialization: [UInt8]
    var picturePageInitialization: [UInt8]
    var timescale: UInt32
    /// The longest a part lasts and about how long a segment does, in seconds, as the frame
    /// rate allows (whole frames).
    var partTarget: Double
    var segmentDuration: Double
}

/// A chunk on its way to the hub.
struct LiveChunk {
    var bytes: [UInt8]
    /// The chunk without its audio, when the stream has audio.
    var pictureBytes: [UInt8]?
    var time: UInt64
    var end: UInt64
    var isIndependent: Bool
    var startsSegment: Bool
    var startsPart: Bool
    var orientation: VideoOrientation
    var captureTime: UInt64
}
