import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The live stream's encoder and timeline, picture by picture.
@Suite struct LiveStreamEncoderTests {
    func pictures(_ count: Int, width: Int = 320, height: Int = 180, start: UInt64 = 5_000_000_000, skipping: Set<Int> = []) throws -> [VideoFrame] {
        let renderer = TestPatternRenderer(width: width, height: height, pixelFormat: .i420)
        return try (0..<count).filter { !skipping.contains($0) }.map { n in
            var bytes = [UInt8](repeating: 0, count: PixelFormat.i420.byteCount(width: width, height: height))
            bytes.withUnsafeMutableBytes { renderer.render(frame: UInt64(n), into: $0.baseAddress!) }
            return try VideoFrame(copying: bytes, width: width, height: height, pixelFormat: .i420,
                              timestamp: start + UInt64(n) * 1_000_000_000 / 30, sequenceNumber: UInt64(n))
        }
    }

    func encoder() throws -> LiveStreamEncoder {
        try LiveStreamEncoder(settings: LiveStreamSettings(),
                              video: VideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30)),
                              size: (320, 180), audio: nil)
    }

    /// Every picture comes back as its own chunk at once (no encoder delay), on the 90 kHz frame
    /// grid; parts hold six pictures (200 ms at 30 fps), segments thirty, each starting with an
    /// IDR; a dropped picture leaves a gap of one frame.
    @Test func eachPictureIsAChunkAtOnceOnTheFrameGrid() throws {
        let live = try encoder()
        var chunks: [LiveChunk] = []
        var parts: [LiveSegmentReport] = []
        var completedSegments = 0
        for (i, picture) in try pictures(66, skipping: [40]).enumerated() {
            let events = live.encode(picture, orientation: .up)
            let made = events.compactMap { if case .chunk(let c) = $0 { c } else { nil } }
            #expect(made.count == 1, "picture \(i) gave \(made.count) chunks at once")
            chunks += made
            for event in events {
                if case .partComplete(let part) = event { parts.append(part.report!) }
                if case .segmentComplete = event { completedSegments += 1 }
            }
        }
        let times = chunks.map(\.time)
        #expect(Array(times.prefix(40)) == (0..<40).map { UInt64($0) * 3000 })
        #expect(times[40] == 41 * 3000, "the dropped picture 40 leaves a gap")
        #expect(chunks.enumerated().filter(\.element.startsSegment).map(\.offset) == [0, 30, 59], "IDRs every 30 frames of time")
        #expect(chunks.allSatisfy { $0.startsSegment == $0.isIndependent })
        #expect(parts.prefix(5).map(\.partIndex) == [0, 1, 2, 3, 4] && parts[5].partIndex == 0 && parts[5].segmentSequenceNumber == 1)
        #expect(parts.allSatisfy { $0.duration <= .milliseconds(200) }, "\(parts.map(\.duration))")
        #expect(completedSegments == 2)
    }

    /// A turn asks for an IDR at once and a new initialization segment with the turned matrix;
    /// its chunk carries the orientation message.
    @Test func aTurnStartsASegmentWithANewInitialization() throws {
        let live = try encoder()
        let turned = try VideoOrientation(rotationAngle: 90, isMirrored: true)
        var initializations: [[UInt8]] = []
        var chunks: [LiveChunk] = []
        for (i, picture) in try pictures(12).enumerated() {
            for event in live.encode(picture, orientation: i < 7 ? .up : turned) {
                if case .initialization(let bytes) = event { initializations.append(bytes) }
                if case .chunk(let chunk) = event { chunks.append(chunk) }
            }
        }
        #expect(initializations.count == 2)
        #expect(chunks.enumerated().filter(\.element.startsSegment).map(\.offset) == [0, 7])
        let tree = try AtomTree(source: InMemoryMovieSource(initializations[1]))
        let tkhd = try #require(tree.atoms[1].child("trak")?.child("tkhd")).decode(TrackHeaderAtom.self)
        #expect(VideoOrientation(matrix: tkhd.matrix) == turned)
        let message = try AtomTree(source: InMemoryMovieSource(chunks[7].bytes))
        #expect(message.atoms.map(\.type) == ["emsg", "prft", "moof", "mdat"])
        let emsg = try EventMessageAtom(bodyBytes: chunks[7].bytes[8..<Int(message.atoms[0].size)])
        #expect(String(decoding: emsg.messageData, as: UTF8.self) == "{\"angle\":90,\"mirrored\":true}" && emsg.presentationTime == 7 * 3000)
    }
}
