import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

// MARK: - Recording what a source delivers

/// What a test keeps of a video event: never the frame itself, which would hold a pool buffer.
enum SeenVideo: Sendable, Equatable {
    case frame(sequence: UInt64, timestamp: UInt64, bytes: [UInt8])
    case dropped(Int)
    case corrupted
    case interrupted(String)
    case ended

    init(_ event: VideoSourceEvent, keepBytes: Bool) {
        switch event {
        case .frame(let frame):
            self = .frame(sequence: frame.sequenceNumber, timestamp: frame.timestamp,
                          bytes: keepBytes ? frame.packedBytes() : [])
        case .dropped(let count): self = .dropped(count)
        case .corrupted: self = .corrupted
        case .interrupted(let reason): self = .interrupted(reason.description)
        case .ended: self = .ended
        }
    }

    var isFinal: Bool {
        switch self {
        case .ended, .interrupted: true
        default: false
        }
    }
}

/// What a test keeps of an audio event.
enum SeenAudio: Sendable {
    case buffer(AudioBuffer)
    case overrun
    case resumedFromSuspend
    case interrupted(String)
    case ended

    init(_ event: AudioSourceEvent) {
        switch event {
        case .buffer(let buffer): self = .buffer(buffer)
        case .overrun: self = .overrun
        case .resumedFromSuspend: self = .resumedFromSuspend
        case .interrupted(let reason): self = .interrupted(reason.description)
        case .ended: self = .ended
        }
    }

    var isFinal: Bool {
        switch self {
        case .ended, .interrupted: true
        default: false
        }
    }
}

/// Events as they arrive, with when and on which thread, and a way to wait for them.
final class EventLog<Entry: Sendable>: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    struct Arrival: Sendable {
        var entry: Entry
        /// ``MonotonicClock`` time of arrival.
        var time: UInt64
        var thread: String
    }

    private let lock = ConditionLock()
    private var arrivals: [Arrival] = []

    func record(_ entry: Entry) {
        let time = MonotonicClock.now(), thread = currentThreadName()
        lock.withLock {
            arrivals.append(Arrival(entry: entry, time: time, thread: thread))
            lock.broadcast()
        }
    }

    var all: [Arrival] { lock.withLock { arrivals } }
    var entries: [Entry] { all.map(\.entry) }

    /// Waits until `done` holds for the entries so far, or `seconds` pass; returns whether it held.
    @discardableResult
    func wait(seconds: Double = 20, until done: ([Entry]) -> Bool) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        return lock.withLock {
            while !done(arrivals.map(\.entry)) {
                if MonotonicClock.now() >= deadline { return false }
                _ = lock.wait(until: deadline)
            }
            return true
        }
    }
}

/// The calling thread's name as the kernel reports it (proc(5)).
func currentThreadName() -> String {
    // Not RandomAccessFile.readAll: proc files report a size of 0.
    let name = FileHandle(forReadingAtPath: "/proc/thread-self/comm")?.readDataToEndOfFile() ?? Data()
    return String(decoding: name.prefix { $0 != 0x0A }, as: UTF8.self)
}

/// Runs a video source until it ends (or `seconds` pass) and returns what it delivered.
func runToEnd(_ source: any VideoSource, keepBytes: Bool = false, seconds: Double = 30) throws -> [EventLog<SeenVideo>.Arrival] {
    let log = EventLog<SeenVideo>()
    try source.start { log.record(SeenVideo($0, keepBytes: keepBytes)) }
    let ended = log.wait(seconds: seconds) { $0.last?.isFinal == true }
    source.stop()
    #expect(ended, "\(source.name) did not end within \(seconds) s")
    return log.all
}

/// Runs an audio source until it ends and returns what it delivered.
func runToEnd(_ source: any AudioSource, seconds: Double = 30) throws -> [EventLog<SeenAudio>.Arrival] {
    let log = EventLog<SeenAudio>()
    try source.start { log.record(SeenAudio($0)) }
    let ended = log.wait(seconds: seconds) { $0.last?.isFinal == true }
    source.stop()
    #expect(ended, "\(source.name) did not end within \(seconds) s")
    return log.all
}

extension Array where Element == EventLog<SeenVideo>.Arrival {
    var frames: [(sequence: UInt64, timestamp: UInt64, bytes: [UInt8], arrival: UInt64)] {
        compactMap {
            if case .frame(let sequence, let timestamp, let bytes) = $0.entry { (sequence, timestamp, bytes, $0.time) } else { nil }
        }
    }
    var droppedCount: Int { reduce(0) { if case .dropped(let n) = $1.entry { $0 + n } else { $0 } } }
}

extension Array where Element == EventLog<SeenAudio>.Arrival {
    var buffers: [(buffer: AudioBuffer, arrival: UInt64)] {
        compactMap { if case .buffer(let buffer) = $0.entry { (buffer, $0.time) } else { nil } }
    }
}

/// Samples of a tightly packed 4:2:0 picture.
struct Picture {
    var bytes: [UInt8]
    var width: Int, height: Int
    var format: PixelFormat

    func yuv(_ x: Int, _ y: Int) -> (y: Int, u: Int, v: Int) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let luma = Int(bytes[y * width + x])
        let chroma = width * height, cx = x / 2, cy = y / 2
        switch format {
        case .i420:
            return (luma, Int(bytes[chroma + cy * chromaWidth + cx]),
                    Int(bytes[chroma + chromaWidth * chromaHeight + cy * chromaWidth + cx]))
        case .nv12:
            return (luma, Int(bytes[chroma + cy * 2 * chromaWidth + 2 * cx]), Int(bytes[chroma + cy * 2 * chromaWidth + 2 * cx + 1]))
        }
    }

    /// BT.601 video range to RGB, as a decoder shows it.
    func rgb(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let (l, u, v) = yuv(x, y)
        let c = 1.164 * Double(l - 16), d = Double(u - 128), e = Double(v - 128)
        func clamp(_ value: Double) -> Int { max(0, min(255, Int(value.rounded()))) }
        return (clamp(c + 1.596 * e), clamp(c - 0.392 * d - 0.813 * e), clamp(c + 2.017 * d))
    }
}

/// The corner patches the orientation tests sample: 10×10 pixels, 5 pixels in from each corner.
func cornerPatches(width: Int, height: Int) -> [(name: String, xs: Range<Int>, ys: Range<Int>)] {
    [("top-left", 5..<15, 5..<15), ("top-right", (width - 15)..<(width - 5), 5..<15),
     ("bottom-left", 5..<15, (height - 15)..<(height - 5)), ("bottom-right", (width - 15)..<(width - 5), (height - 15)..<(height - 5))]
}

func isRed(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.r > 150 && p.g < 90 && p.b < 90 }
func isGreen(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.g > 150 && p.r < 90 && p.b < 90 }

/// Reads the counter's digits back from a picture, matching each cell against the font.
func readCounter(_ picture: Picture, renderer: TestPatternRenderer) -> Int? {
    readCounter(renderer: renderer) { x, y, lit in picture.yuv(x, y).y == (lit ? 235 : 16) }
}

/// Reads the counter's digits, asking `matches` whether the font cell's centre at (x, y) shows
/// a lit (or unlit) pixel.
func readCounter(renderer: TestPatternRenderer, matches: (_ x: Int, _ y: Int, _ lit: Bool) -> Bool) -> Int? {
    let box = renderer.counterBox, s = renderer.counterScale
    var value = 0
    for position in 0..<TestPatternRenderer.counterDigits {
        let cellX = box.x + (1 + position * 6) * s
        let digit = TestPatternRenderer.font.indices.first { digit in
            TestPatternRenderer.font[digit].enumerated().allSatisfy { row, bits in
                (0..<5).allSatisfy { column in
                    matches(cellX + column * s + s / 2, box.y + (2 + row) * s + s / 2, bits & (0b10000 >> column) != 0)
                }
            }
        }
        guard let digit else { return nil }
        value = value * 10 + digit
    }
    return value
}

/// Nanoseconds of `n` items at `count` per `seconds`, rounded down: the independent reference
/// for every timestamp check.
func expectedNanoseconds(_ n: UInt64, count: UInt64, seconds: UInt64 = 1) -> UInt64 {
    UInt64((UInt128(n) * UInt128(seconds) * 1_000_000_000) / UInt128(count))
}

/// Where two byte sequences first differ, in words, or `nil` when they are equal; keeps failure
/// messages short where `==` on the arrays would print them whole.
func firstDifference(_ actual: some Collection<UInt8>, _ expected: some Collection<UInt8>) -> String? {
    if let index = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        return "byte \(index) differs: \(Array(actual)[index]), expected \(Array(expected)[index])"
    }
    return actual.count == expected.count ? nil : "\(actual.count) bytes, expected \(expected.count)"
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

// MARK: - Tests

@Suite(.serialized) struct SyntheticSourceTests {

    // MARK: Test pattern: configuration and timing

    @Test(arguments: [(63, 64), (64, 63), (62, 64), (64, 62), (65, 64), (64, 66 + 1), (0, 0), (-64, 64)])
    func testPatternRefusesSizes(width: Int, height: Int) {
        let error = #expect(throws: SourceError.self) {
            _ = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30))
        }
        #expect(error?.code == .invalidConfiguration && error?.source == "test pattern" && error?.step == "creating")
        #expect(error?.description.hasPrefix("test pattern: creating failed: \(width)x\(height)") == true, "\(String(describing: error))")
    }

    @Test func testPatternRefusesZeroRate() {
        #expect(throws: SourceError.self) { _ = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 0)) }
        #expect(throws: SourceError.self) {
            _ = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30, seconds: 0))
        }
        #expect(throws: SourceError.self) {
            _ = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), frameLimit: -1)
        }
        #expect(throws: SourceError.self) {
            _ = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), bufferCount: 0)
        }
    }

    @Test func testPatternOutOfRealTimeDeliversExactlyTheLimitWithExactTimestamps() throws {
        let source = try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30_000, seconds: 1001),
                                           realTime: false, frameLimit: 50)
        #expect(!source.isLive)
        #expect(source.format == VideoFormat(width: 160, height: 120, pixelFormat: .i420,
                                             frameRate: FrameRate(frames: 30_000, seconds: 1001)))
        let before = MonotonicClock.now()
        let events = try runToEnd(source)
        let frames = events.frames
        #expect(frames.count == 50)
        #expect(events.droppedCount == 0)
        #expect(events.last?.entry == .ended)
        #expect(frames.map(\.sequence) == Array(0..<50))
        let start = try #require(frames.first?.timestamp)
        #expect(start >= before && start < before + 1_000_000_000)
        for frame in frames {
            #expect(frame.timestamp - start == expectedNanoseconds(frame.sequence, count: 30_000, seconds: 1001))
        }
        // Not paced: 50 frames of 33 ms each take far less than their 1.67 s.
        #expect(events.last!.time - before < 1_000_000_000)
        #expect(events.allSatisfy { $0.thread == "test pattern" })
    }

    @Test func testPatternInRealTimeIsPacedOnTheMonotonicClock() throws {
        let source = try TestPatternSource(width: 128, height: 96, frameRate: FrameRate(frames: 30), frameLimit: 10)
        #expect(source.isLive)
        let before = MonotonicClock.now()
        let events = try runToEnd(source)
        let frames = events.frames
        #expect(frames.count + events.droppedCount == 10)
        #expect(frames.count >= 8, "a lightly loaded machine keeps up with 30 fps")
        let start = try #require(frames.first.map { $0.timestamp - expectedNanoseconds($0.sequence, count: 30) })
        #expect(start >= before && start < before + 50_000_000)
        var lateness: [UInt64] = []
        for frame in frames {
            #expect(frame.timestamp == start + expectedNanoseconds(frame.sequence, count: 30))
            #expect(frame.arrival >= frame.timestamp, "frame \(frame.sequence) arrived before its capture time")
            lateness.append(frame.arrival - frame.timestamp)
        }
        #expect(lateness.sorted()[lateness.count / 2] < 20_000_000, "median lateness \(lateness.sorted()[lateness.count / 2]) ns")
        // Ten frames at 30 fps: the last is captured 300 ms after the first.
        let elapsed = events.last!.time - start
        #expect(elapsed >= 299_000_000 && elapsed < 600_000_000, "ran \(elapsed) ns")
    }

    // MARK: Test pattern: content

    @Test(arguments: [PixelFormat.i420, .nv12])
    func testPatternMarksTheTopCornersAndNothingElse(_ format: PixelFormat) throws {
        let width = 320, height = 240
        let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), pixelFormat: format,
                                           realTime: false, frameLimit: 200)
        let frames = try runToEnd(source, keepBytes: true).frames
        try #require(frames.count == 200)
        for frame in frames {
            let picture = Picture(bytes: frame.bytes, width: width, height: height, format: format)
            #expect(frame.bytes.count == format.byteCount(width: width, height: height))
            for (name, xs, ys) in cornerPatches(width: width, height: height) {
                for y in ys {
                    for x in xs {
                        let value = picture.yuv(x, y)
                        switch name {
                        case "top-left":
                            if value != (81, 90, 240) { Issue.record("frame \(frame.sequence) \(name) (\(x),\(y)) is \(value)"); return }
                        case "top-right":
                            if value != (145, 54, 34) { Issue.record("frame \(frame.sequence) \(name) (\(x),\(y)) is \(value)"); return }
                        default:
                            let rgb = picture.rgb(x, y)
                            if isRed(rgb) || isGreen(rgb) {
                                Issue.record("frame \(frame.sequence) \(name) (\(x),\(y)) is \(rgb)"); return
                            }
                        }
                    }
                }
            }
            // The blocks are a quarter of the picture each way.
            #expect(picture.yuv(79, 59) == (81, 90, 240) && picture.yuv(80, 60) != (81, 90, 240))
            #expect(picture.yuv(240, 59) == (145, 54, 34) && picture.yuv(239, 59) != (145, 54, 34))
        }
        // The arrow: white at the centre of its shaft and near its tip, pointing up (narrow at the top).
        let picture = Picture(bytes: frames[0].bytes, width: width, height: height, format: format)
        let arrow = source.renderer.arrowBox
        let centre = arrow.x + arrow.width / 2
        #expect(picture.yuv(centre, arrow.y + arrow.height - 2) == (235, 128, 128))
        #expect(picture.yuv(centre, arrow.y + 1).y == 235)
        #expect(picture.yuv(arrow.x + 2, arrow.y + 1).y != 235, "the arrow's top row is its tip, not its base")
        #expect(picture.yuv(arrow.x + 2, arrow.y + arrow.height / 2 - 1).y == 235, "the head is widest at its base")
    }

    @Test func testPatternFramesDifferAndTheCounterCounts() throws {
        let width = 320, height = 240
        let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), realTime: false,
                                           frameLimit: 12)
        let frames = try runToEnd(source, keepBytes: true).frames
        try #require(frames.count == 12)
        let renderer = source.renderer
        let box = renderer.counterBox
        for (previous, frame) in zip(frames, frames.dropFirst()) {
            #expect(firstDifference(previous.bytes, frame.bytes) != nil, "frames \(previous.sequence) and \(frame.sequence) are equal")
            // The background moves where nothing else is drawn: the bottom row.
            let bottom = (height - 1) * width
            #expect(firstDifference(previous.bytes[bottom..<(bottom + width)], frame.bytes[bottom..<(bottom + width)]) != nil,
                    "the bottom row of frame \(frame.sequence) did not move")
            let counterRows = { (bytes: [UInt8]) in (box.y..<(box.y + box.height)).flatMap { bytes[($0 * width + box.x)..<($0 * width + box.x + box.width)] } }
            #expect(firstDifference(counterRows(previous.bytes), counterRows(frame.bytes)) != nil,
                    "the counter did not change at frame \(frame.sequence)")
        }
        for frame in frames {
            let picture = Picture(bytes: frame.bytes, width: width, height: height, format: .i420)
            #expect(readCounter(picture, renderer: renderer) == Int(frame.sequence))
        }
        // Straight from the renderer: a large number, and the wrap after seven digits.
        for (n, shown) in [(1_234_567, 1_234_567), (10_000_123, 123), (9_999_999, 9_999_999)] {
            var bytes = [UInt8](repeating: 0, count: PixelFormat.i420.byteCount(width: width, height: height))
            bytes.withUnsafeMutableBytes { renderer.render(frame: UInt64(n), into: $0.baseAddress!) }
            #expect(readCounter(Picture(bytes: bytes, width: width, height: height, format: .i420), renderer: renderer) == shown)
        }
    }

    /// The markers survive H.264 encoding and decoding as a player shows them (ffmpeg, BT.601).
    @Test(arguments: [PixelFormat.i420, .nv12])
    func testPatternMarkersSurviveH264(_ format: PixelFormat) throws {
        let width = 320, height = 240
        let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 30), pixelFormat: format,
                                           realTime: false, frameLimit: 30)
        let frames = try runToEnd(source, keepBytes: true).frames
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try writeFile(directory.file("in.yuv"), frames.flatMap(\.bytes))
        let encode = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", format == .i420 ? "yuv420p" : "nv12",
                                        "-s", "\(width)x\(height)", "-r", "30", "-i", directory.file("in.yuv"),
                                        "-c:v", "libx264", "-pix_fmt", "yuv420p", directory.file("out.264")])
        try #require(encode.status == 0, "\(encode.error)")
        let decode = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", directory.file("out.264"), "-f", "rawvideo",
                                        "-pix_fmt", "rgb24", directory.file("out.rgb")])
        try #require(decode.status == 0, "\(decode.error)")
        let rgb = try RandomAccessFile.readAll(directory.file("out.rgb"))
        let frameBytes = width * height * 3
        #expect(rgb.count == frames.count * frameBytes)
        for index in 0..<(rgb.count / frameBytes) {
            for (name, xs, ys) in cornerPatches(width: width, height: height) {
                var sum = (r: 0, g: 0, b: 0)
                for y in ys {
                    for x in xs {
                        let at = index * frameBytes + (y * width + x) * 3
                        sum = (sum.r + Int(rgb[at]), sum.g + Int(rgb[at + 1]), sum.b + Int(rgb[at + 2]))
                    }
                }
                let mean = (r: sum.r / 100, g: sum.g / 100, b: sum.b / 100)
                switch name {
                case "top-left": #expect(isRed(mean), "frame \(index) \(name): \(mean)")
                case "top-right": #expect(isGreen(mean), "frame \(index) \(name): \(mean)")
                default: #expect(!isRed(mean) && !isGreen(mean), "frame \(index) \(name): \(mean)")
                }
            }
        }
    }

    // MARK: Test pattern: buffers and lifecycle

    @Test func liveTestPatternDropsWhenConsumersHoldEveryBuffer() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 200), frameLimit: 20, bufferCount: 4)
        let held = EventLog<VideoFrame>()
        let log = EventLog<SeenVideo>()
        try source.start { event in
            if case .frame(let frame) = event { held.record(frame) }
            log.record(SeenVideo(event, keepBytes: false))
        }
        #expect(log.wait { $0.last?.isFinal == true })
        source.stop()
        let events = log.all
        #expect(events.frames.count <= 4)
        #expect(events.frames.count + events.droppedCount == 20)
        #expect(events.droppedCount >= 16)
        #expect(events.last?.entry == .ended)
    }

    @Test func testPatternOutOfRealTimeWaitsForABufferInsteadOfDropping() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), realTime: false,
                                           frameLimit: 8, bufferCount: 3)
        let log = try runHoldingFrames(source, held: 3, keepBytes: false, "the source went on without a free buffer")
        #expect(log.all.frames.map(\.sequence) == Array(0..<8))
        #expect(log.all.droppedCount == 0)
    }

    @Test func stopInterruptsTheWaitForTheNextFrameAndJoins() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 1, seconds: 5))
        let log = EventLog<SeenVideo>()
        try source.start { log.record(SeenVideo($0, keepBytes: false)) }
        #expect(log.wait(seconds: 2) { $0.count == 1 })
        let before = MonotonicClock.now()
        source.stop()
        let took = MonotonicClock.now() - before
        #expect(took < 100_000_000, "stop() took \(took) ns with the next frame 5 s away")
        usleep(50_000)
        #expect(log.entries.count == 1, "events after stop(): \(log.entries)")
        source.stop()  // Stopping twice is harmless.
    }

    @Test func startWhileRunningThrowsAndStartAfterStopBeginsAgain() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 100))
        let first = EventLog<SeenVideo>()
        try source.start { first.record(SeenVideo($0, keepBytes: false)) }
        let error = #expect(throws: SourceError.self) { try source.start { _ in } }
        #expect(error?.code == .alreadyRunning && error?.description.hasPrefix("test pattern: starting failed") == true)
        #expect(first.wait { $0.count >= 5 })
        source.stop()
        let firstFrames = first.all.frames
        let second = EventLog<SeenVideo>()
        try source.start { second.record(SeenVideo($0, keepBytes: false)) }
        #expect(second.wait { $0.count >= 3 })
        source.stop()
        let secondFrames = second.all.frames
        #expect(secondFrames.first?.sequence == 0)
        #expect(secondFrames.first!.timestamp > firstFrames.last!.timestamp)
    }

    @Test func startAfterTheEndBeginsAgainWithoutStop() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 3)
        let first = EventLog<SeenVideo>()
        try source.start { first.record(SeenVideo($0, keepBytes: false)) }
        #expect(first.wait { $0.last?.isFinal == true })
        let second = try runToEnd(source)
        #expect(second.frames.map(\.sequence) == [0, 1, 2])
        // Even from the handler of the last event.
        let third = EventLog<SeenVideo>()
        let restarts = EventLog<Bool>()
        try source.start { [source] event in
            third.record(SeenVideo(event, keepBytes: false))
            if case .ended = event, restarts.entries.isEmpty {
                restarts.record((try? source.start { third.record(SeenVideo($0, keepBytes: false)) }) != nil)
            }
        }
        #expect(third.wait { $0.filter { $0 == .ended }.count == 2 })
        // The restart is recorded once `start` returns, which may be after its run has ended.
        #expect(restarts.wait { $0 == [true] })
        source.stop()
        #expect(third.all.frames.map(\.sequence) == [0, 1, 2, 0, 1, 2])
    }

    @Test func startRightAfterTheEndWhileTheLastHandlerStopsDoesNotDeadlock() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 1)
        for round in 0..<10 {
            let log = EventLog<SeenVideo>()
            try source.start { [source] event in
                log.record(SeenVideo(event, keepBytes: false))
                if case .ended = event {
                    usleep(5_000)
                    source.stop()
                }
            }
            #expect(log.wait { $0.last == .ended })
            // Start again from another thread while the handler of `.ended` is about to stop.
            let started = EventLog<Bool>()
            let starter = DedicatedThread(name: "starter") { started.record((try? source.start { _ in }) != nil) }
            let finished = started.wait(seconds: 5) { !$0.isEmpty }
            #expect(finished, "round \(round): start() and stop() deadlocked")
            guard finished else { return }
            starter.join()
            source.stop()
            #expect(started.entries == [true])
        }
    }

    @Test func stopFromTheHandlerEndsTheRunWithoutDeadlock() throws {
        let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), realTime: false)
        let log = EventLog<SeenVideo>()
        try source.start { [source] event in
            log.record(SeenVideo(event, keepBytes: false))
            if case .frame(let frame) = event, frame.sequenceNumber == 3 { source.stop() }
        }
        #expect(log.wait(seconds: 5) { $0.count >= 4 })
        usleep(100_000)
        #expect(log.all.frames.map(\.sequence) == [0, 1, 2, 3])
        // It can be started again.
        let again = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 30), realTime: false, frameLimit: 2)
        #expect(try runToEnd(again).frames.count == 2)
        let restarted = EventLog<SeenVideo>()
        try source.start { restarted.record(SeenVideo($0, keepBytes: false)) }
        #expect(restarted.wait { $0.count >= 2 })
        source.stop()
        #expect(restarted.all.frames.first?.sequence == 0)
    }

    @Test func releasingARunningSourceStopsIt() throws {
        let log = EventLog<SeenVideo>()
        do {
            let source = try TestPatternSource(width: 64, height: 64, frameRate: FrameRate(frames: 100))
            try source.start { log.record(SeenVideo($0, keepBytes: false)) }
            #expect(log.wait { $0.count >= 2 })
        }
        let count = log.entries.count
        usleep(100_000)
        #expect(log.entries.count == count)
    }

    // MARK: Test pattern: speed

    /// Frames per second one capture thread produces out of real time, with a handler that lets
    /// each frame go at once.
    @Test(arguments: [(1280, 720, PixelFormat.i420), (1280, 720, .nv12), (1920, 1080, .i420), (1920, 1080, .nv12)])
    func testPatternIsFarFasterThanRealTime(width: Int, height: Int, format: PixelFormat) throws {
        let frameCount = 300
        let source = try TestPatternSource(width: width, height: height, frameRate: FrameRate(frames: 60), pixelFormat: format,
                                           realTime: false, frameLimit: frameCount)
        let before = MonotonicClock.now()
        let events = try runToEnd(source)
        let seconds = Double(events.last!.time - before) / 1e9
        let rate = Double(events.frames.count) / seconds
        print("test pattern \(width)x\(height) \(format.rawValue): \(Int(rate)) frames/s on one thread")
        #expect(events.frames.count == frameCount)
        #expect(rate > 120, "\(width)x\(height) \(format.rawValue) at \(Int(rate)) fps")
    }

    // MARK: Y4M

    /// A picture whose every byte depends on the frame and its position.
    func y4mPicture(frame: Int, width: Int, height: Int) -> [UInt8] {
        (0..<PixelFormat.i420.byteCount(width: width, height: height)).map { UInt8(truncatingIfNeeded: frame * 37 + $0 * 7 + $0 / 13) }
    }

    @Test(arguments: [(34, 18, true), (33, 17, true), (34, 18, false), (33, 17, false)])
    func y4mReadsBackExactly(width: Int, height: Int, mapped: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("in.y4m")
        var file = Array("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n".utf8)
        for frame in 0..<4 {
            file += Array((frame == 2 ? "FRAME Ip XMARK=\(frame)\n" : "FRAME\n").utf8)
            file += y4mPicture(frame: frame, width: width, height: height)
        }
        try writeFile(path, file)
        let source = try Y4MFileSource(path: path, bufferCount: 6, allowsMapping: mapped)
        #expect(source.format == VideoFormat(width: width, height: height, pixelFormat: .i420, frameRate: FrameRate(frames: 25)))
        #expect(!source.isLive)
        #expect(source.name == path)
        let events = try runToEnd(source, keepBytes: true)
        let frames = events.frames
        #expect(frames.count == 4)
        #expect(events.droppedCount == 0)
        #expect(events.last?.entry == .ended)
        #expect(events.allSatisfy { $0.thread == "y4m reader" })
        for (index, frame) in frames.enumerated() {
            #expect(frame.sequence == UInt64(index))
            #expect(firstDifference(frame.bytes, y4mPicture(frame: index, width: width, height: height)) == nil, "frame \(index)")
            #expect(frame.timestamp - frames[0].timestamp == UInt64(index) * 40_000_000)
        }
    }

    @Test(arguments: [true, false])
    func y4mHoldsAtMostItsBufferCountOfPictures(mapped: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("in.y4m")
        var file = Array("YUV4MPEG2 W64 H64 F30:1\n".utf8)
        for frame in 0..<8 { file += Array("FRAME\n".utf8) + y4mPicture(frame: frame, width: 64, height: 64) }
        try writeFile(path, file)
        let source = try Y4MFileSource(path: path, bufferCount: 3, allowsMapping: mapped)
        let log = try runHoldingFrames(source, held: 3, keepBytes: true, "the source read ahead while consumers held every picture")
        let frames = log.all.frames
        #expect(frames.map(\.sequence) == Array(0..<8))
        for (index, frame) in frames.enumerated() {
            #expect(firstDifference(frame.bytes, y4mPicture(frame: index, width: 64, height: 64)) == nil, "frame \(index)")
        }
    }

    @Test func y4mFromFFmpegMatchesItsRawPictures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        for (output, extra) in [("out.y4m", [String]()), ("out.yuv", ["-f", "rawvideo"])] {
            let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=30000/1001",
                                            "-frames:v", "5", "-pix_fmt", "yuv420p"] + extra + [directory.file(output)])
            try #require(result.status == 0, "\(result.error)")
        }
        let source = try Y4MFileSource(path: directory.file("out.y4m"))
        #expect(source.format.frameRate == FrameRate(frames: 30_000, seconds: 1001))
        let frames = try runToEnd(source, keepBytes: true).frames
        #expect(frames.count == 5)
        #expect(firstDifference(frames.flatMap(\.bytes), try RandomAccessFile.readAll(directory.file("out.yuv"))) == nil)
        for frame in frames {
            #expect(frame.timestamp - frames[0].timestamp == expectedNanoseconds(frame.sequence, count: 30_000, seconds: 1001))
        }
    }

    @Test(arguments: ["FRAME\n" + String(repeating: "x", count: 100), "FRAME", "FRA", "FRAME XA=1"])
    func y4mLastFrameCutShortIsDropped(tail: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var file = Array("YUV4MPEG2 W16 H16 F30:1\n".utf8)
        for frame in 0..<2 { file += Array("FRAME\n".utf8) + y4mPicture(frame: frame, width: 16, height: 16) }
        file += Array(tail.utf8)
        try writeFile(directory.file("cut.y4m"), file)
        let events = try runToEnd(try Y4MFileSource(path: directory.file("cut.y4m")))
        #expect(events.map(\.entry).filter { if case .frame = $0 { false } else { true } } == [.dropped(1), .ended])
        #expect(events.frames.count == 2)
    }

    @Test func y4mDamagedFrameHeaderInterrupts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("damaged.y4m")
        try writeFile(path, Array("YUV4MPEG2 W16 H16 F30:1\nFRAME\n".utf8) + y4mPicture(frame: 0, width: 16, height: 16)
                      + Array("FRAMES\n".utf8) + y4mPicture(frame: 1, width: 16, height: 16))
        let events = try runToEnd(try Y4MFileSource(path: path))
        #expect(events.frames.count == 1)
        guard case .interrupted(let message) = events.last?.entry else { Issue.record("\(events.map(\.entry))"); return }
        #expect(message.contains(path) && message.contains("frame 1") && message.contains("FRAME"), "\(message)")
    }

    @Test(arguments: [
        ("YUV4MPEG W16 H16 F25:1\n", SourceError.Code.malformedFile, "YUV4MPEG2"),
        ("", .malformedFile, "YUV4MPEG2"),
        ("YUV4MPEG2 H16 F25:1\n", .malformedFile, "width"),
        ("YUV4MPEG2 W16 F25:1\n", .malformedFile, "height"),
        ("YUV4MPEG2 W16 H16\n", .malformedFile, "frame rate"),
        ("YUV4MPEG2 W16 H16 F25:0\n", .malformedFile, "F25:0"),
        ("YUV4MPEG2 W16 H16 F25\n", .malformedFile, "F25"),
        ("YUV4MPEG2 W0 H16 F25:1\n", .malformedFile, "width"),
        ("YUV4MPEG2 Wide H16 F25:1\n", .malformedFile, "ide"),
        ("YUV4MPEG2 W16 H16 F25:1 Ix\n", .malformedFile, "Ix"),
        ("YUV4MPEG2 W16 H16 F25:1", .malformedFile, "no end"),
        ("YUV4MPEG2 W16 H16 F25:1 X" + String(repeating: "y", count: 5000) + "\n", .malformedFile, "no end within 4096 bytes"),
        ("YUV4MPEG2 W16 H16 F25:1 It\n", .unsupportedFormat, "interlaced"),
        ("YUV4MPEG2 W16 H16 F25:1 Ib\n", .unsupportedFormat, "interlaced"),
        ("YUV4MPEG2 W16 H16 F25:1 Im\n", .unsupportedFormat, "interlaced"),
        ("YUV4MPEG2 W16 H16 F25:1 C422\n", .unsupportedFormat, "C422"),
        ("YUV4MPEG2 W16 H16 F25:1 C444\n", .unsupportedFormat, "C444"),
        ("YUV4MPEG2 W16 H16 F25:1 C420p10\n", .unsupportedFormat, "C420p10"),
        ("YUV4MPEG2 W16 H16 F25:1 Cmono\n", .unsupportedFormat, "Cmono"),
    ])
    func y4mRefusesHeaders(header: String, code: SourceError.Code, phrase: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("bad.y4m")
        // A header without its newline is the whole file; the others are followed by a frame.
        try writeFile(path, Array(header.utf8) + (header.hasSuffix("\n") ? Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: 384) : []))
        let error = #expect(throws: SourceError.self) { _ = try Y4MFileSource(path: path) }
        #expect(error?.code == code)
        #expect(error?.source == path && error?.step == "reading the YUV4MPEG2 header")
        #expect(error?.message.contains(phrase) == true, "\(String(describing: error))")
    }

    @Test(arguments: ["C420", "C420paldv", "C420mpeg2", "C420jpeg", "I?"])
    func y4mAcceptsTheFourTwoZeroTags(tag: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try writeFile(directory.file("ok.y4m"), Array("YUV4MPEG2 W16 H16 F25:1 \(tag)\n".utf8))
        #expect(try Y4MFileSource(path: directory.file("ok.y4m")).format.width == 16)
    }

    @Test func y4mMissingFileThrowsFileError() {
        #expect(throws: FileError.self) { _ = try Y4MFileSource(path: "/nonexistent/in.y4m") }
    }

    // MARK: Tone

    /// Channel 0 of every buffer, as one signal.
    func channelZero(_ buffers: [AudioBuffer], channels: Int) -> [Int16] {
        buffers.flatMap { buffer in
            buffer.bytes.withUnsafeBytes { raw in
                (0..<buffer.frameCount).map { Int16(littleEndian: raw.load(fromByteOffset: $0 * channels * 2, as: Int16.self)) }
            }
        }
    }

    @Test(arguments: [(1000.0, 48_000), (440.0, 48_000), (997.0, 44_100)])
    func toneHasItsFrequencyByZeroCrossings(frequency: Double, rate: Int) throws {
        let source = try ToneSource(frequency: frequency, sampleRate: rate, realTime: false, durationFrames: rate)
        let buffers = try runToEnd(source).buffers.map(\.buffer)
        let samples = channelZero(buffers, channels: 2)
        #expect(samples.count == rate)
        // Upward zero crossings, placed between samples by linear interpolation.
        var crossings: [Double] = []
        for i in 1..<samples.count where samples[i - 1] < 0 && samples[i] >= 0 {
            let a = Double(samples[i - 1]), b = Double(samples[i])
            crossings.append(Double(i - 1) + -a / (b - a))
        }
        let measured = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(rate))
        #expect(abs(measured - frequency) / frequency < 0.01, "measured \(measured) Hz")
        #expect(samples.max()! >= 16_380 && samples.max()! <= 16_384, "peak \(samples.max()!)")
        // Both channels carry the same samples.
        for buffer in buffers {
            buffer.bytes.withUnsafeBytes { raw in
                for frame in 0..<buffer.frameCount {
                    let left = raw.load(fromByteOffset: frame * 4, as: Int16.self), right = raw.load(fromByteOffset: frame * 4 + 2, as: Int16.self)
                    if left != right { Issue.record("frame \(frame): \(left) ≠ \(right)"); return }
                }
            }
        }
    }

    @Test func tonePhaseRunsOnAcrossBuffers() throws {
        // 100-frame buffers split the 109.09-frame period of 440 Hz at a different phase every time.
        let source = try ToneSource(frequency: 440, sampleRate: 48_000, channelCount: 1, amplitude: 0.8, realTime: false,
                                    bufferFrames: 100, durationFrames: 9_600)
        let buffers = try runToEnd(source).buffers.map(\.buffer)
        #expect(buffers.count == 96)
        let samples = channelZero(buffers, channels: 1)
        for (k, sample) in samples.enumerated() {
            let expected = (0.8 * 32_767 * sin(2 * Double.pi * 440 * Double(k) / 48_000)).rounded()
            if abs(Double(sample) - expected) > 1 { Issue.record("frame \(k): \(sample), expected \(expected)"); return }
        }
        // At each boundary the step from the last sample to the next is the step a sine makes.
        let largestStep = 0.8 * 32_767 * 2 * Double.pi * 440 / 48_000
        for boundary in stride(from: 100, to: samples.count, by: 100) {
            #expect(abs(Double(samples[boundary]) - Double(samples[boundary - 1])) <= largestStep + 1)
        }
    }

    @Test func toneBuffersAndTimestampsComeFromTheFrameCount() throws {
        let source = try ToneSource(sampleRate: 44_100, channelCount: 3, realTime: false, bufferFrames: 1000, durationFrames: 10_500)
        #expect(source.format == PCMFormat.int16(sampleRate: 44_100, channelCount: 3))
        #expect(!source.isLive)
        let events = try runToEnd(source)
        let buffers = events.buffers.map(\.buffer)
        #expect(buffers.map(\.frameCount) == Array(repeating: 1000, count: 10) + [500])
        #expect(buffers.allSatisfy { $0.bytes.count == $0.frameCount * 3 * 2 })
        let start = buffers[0].timestamp
        for (n, buffer) in buffers.enumerated() {
            #expect(buffer.timestamp - start == expectedNanoseconds(UInt64(n * 1000), count: 44_100))
        }
        guard case .ended = events.last?.entry else { Issue.record("no .ended"); return }
        #expect(events.allSatisfy { $0.thread == "tone" })
        // 20 ms buffers by default.
        #expect(try ToneSource().bufferFrames == 960)
    }

    @Test func toneInRealTimeDeliversEachBufferOnceItsFramesAreCaptured() throws {
        let source = try ToneSource(durationFrames: 14_400)
        #expect(source.isLive)
        let before = MonotonicClock.now()
        let events = try runToEnd(source)
        let buffers = events.buffers
        #expect(buffers.count == 15)
        let start = buffers[0].buffer.timestamp
        #expect(start >= before && start < before + 50_000_000)
        var lateness: [UInt64] = []
        for (n, (buffer, arrival)) in buffers.enumerated() {
            let captured = start + expectedNanoseconds(UInt64((n + 1) * 960), count: 48_000)
            #expect(arrival >= captured, "buffer \(n) arrived before its last frame was captured")
            lateness.append(arrival - captured)
            #expect(buffer.timestamp == start + expectedNanoseconds(UInt64(n * 960), count: 48_000))
        }
        #expect(lateness.sorted()[lateness.count / 2] < 20_000_000)
        let elapsed = events.last!.time - start
        #expect(elapsed >= 300_000_000 && elapsed < 600_000_000, "ran \(elapsed) ns")
    }

    @Test func toneStopIsPromptAndStartWhileRunningThrows() throws {
        let source = try ToneSource(bufferFrames: 48_000 * 5)
        let log = EventLog<SeenAudio>()
        try source.start { log.record(SeenAudio($0)) }
        #expect(throws: SourceError.self) { try source.start { _ in } }
        usleep(50_000)
        let before = MonotonicClock.now()
        source.stop()
        #expect(MonotonicClock.now() - before < 100_000_000)
        #expect(log.entries.count == 0, "buffers arrived although the first was 5 s away")
    }

    @Test(arguments: [(0.0, 48_000, 2, 0.5), (24_000.0, 48_000, 2, 0.5), (1000.0, 0, 2, 0.5), (1000.0, 48_000, 0, 0.5),
                      (1000.0, 48_000, 2, 1.5), (1000.0, 48_000, 2, -0.1)])
    func toneRefusesParameters(frequency: Double, rate: Int, channels: Int, amplitude: Double) {
        let error = #expect(throws: SourceError.self) {
            _ = try ToneSource(frequency: frequency, sampleRate: rate, channelCount: channels, amplitude: amplitude)
        }
        #expect(error?.code == .invalidConfiguration && error?.description.hasPrefix("tone: creating failed") == true)
    }

    // MARK: WAV

    /// The data chunk of a WAV file, found by walking the chunks here rather than with ``WAVFile``.
    func dataChunk(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) { return bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)] }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    @Test func wavSourceDeliversTheFilesDataInTwentyMillisecondBuffers() throws {
        let path = fixture("tone-48k-stereo.wav")
        let source = try WAVFileSource(path: path)
        #expect(source.format == PCMFormat.int16(sampleRate: 48_000, channelCount: 2))
        #expect(!source.isLive)
        #expect(source.bufferFrames == 960)
        let events = try runToEnd(source)
        let buffers = events.buffers.map(\.buffer)
        let data = try #require(dataChunk(try RandomAccessFile.readAll(path)))
        #expect(data.count == 48_000 * 4)
        #expect(firstDifference(buffers.flatMap(\.bytes), data) == nil)
        #expect(buffers.allSatisfy { $0.frameCount == 960 && $0.bytes.count == 960 * 4 })
        for (n, buffer) in buffers.enumerated() {
            #expect(buffer.timestamp - buffers[0].timestamp == UInt64(n) * 20_000_000)
        }
        guard case .ended = events.last?.entry else { Issue.record("no .ended"); return }
        #expect(events.allSatisfy { $0.thread == "wav reader" })
    }

    @Test func wavSourceTimestampsAtAnOddRate() throws {
        let path = fixture("tone-44k1-mono.wav")
        let source = try WAVFileSource(path: path)
        let buffers = try runToEnd(source).buffers.map(\.buffer)
        #expect(buffers.reduce(0) { $0 + $1.frameCount } == 44_100)
        #expect(buffers.first?.frameCount == 882)
        var frames: UInt64 = 0
        for buffer in buffers {
            #expect(buffer.timestamp - buffers[0].timestamp == expectedNanoseconds(frames, count: 44_100))
            frames += UInt64(buffer.frameCount)
        }
        #expect(firstDifference(buffers.flatMap(\.bytes), try #require(dataChunk(try RandomAccessFile.readAll(path)))) == nil)
    }

    @Test func wavFileCutShortAfterOpeningInterrupts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("cut.wav")
        try writeFile(path, try RandomAccessFile.readAll(fixture("tone-48k-stereo.wav")))
        let source = try WAVFileSource(path: path)
        #expect(truncate(path, off_t(source.wav.dataOffset) + 960 * 4 * 3 + 100) == 0)
        let events = try runToEnd(source)
        #expect(events.buffers.count == 3)
        guard case .interrupted(let message) = events.last?.entry else { Issue.record("\(events.map(\.entry))"); return }
        #expect(message.contains(path) && message.contains("before the end of its data chunk"), "\(message)")
    }
}

/// Runs `source` while a consumer keeps every frame it gets: once `held` frames are held, the
/// source must wait (checked after 100 ms) rather than go on; then the frames are let go, a
/// few at a time, until the source ends.
/// - Returns: every event the source sent.
func runHoldingFrames(_ source: any VideoSource, held: Int, keepBytes: Bool, _ waitingMessage: String) throws -> EventLog<SeenVideo> {
    final class Holder: @unchecked Sendable {
        let lock = ConditionLock()
        var frames: [VideoFrame] = []
    }
    let holder = Holder()
    let log = EventLog<SeenVideo>()
    try source.start { event in
        if case .frame(let frame) = event { holder.lock.withLock { holder.frames.append(frame) } }
        log.record(SeenVideo(event, keepBytes: keepBytes))
    }
    defer { source.stop() }
    #expect(log.wait { $0.count == held })
    usleep(100_000)
    #expect(log.entries.count == held, "\(waitingMessage): \(log.entries.count) events")
    while !log.wait(seconds: 0.01, until: { $0.last?.isFinal == true }) {
        holder.lock.withLock { holder.frames.removeAll() }
    }
    return log
}
