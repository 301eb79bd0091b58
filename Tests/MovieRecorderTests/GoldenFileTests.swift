import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The writer must reproduce every golden movie byte for byte. Set MOVREC_UPDATE_GOLDEN=1 to
/// rewrite them after a deliberate format change (then the oracle tests must pass again).
@Suite struct GoldenFileTests {
    @Test(arguments: GoldenCase.all)
    func writerReproducesGoldenFile(_ golden: GoldenCase) throws {
        let bytes = try golden.make()
        if ProcessInfo.processInfo.environment["MOVREC_UPDATE_GOLDEN"] == "1" {
            try Data(bytes).write(to: URL(fileURLWithPath: golden.path))
        }
        let expected = try RandomAccessFile.readAll(golden.path)
        #expect(bytes.count == expected.count, "\(golden): size \(bytes.count), golden \(expected.count)")
        if let first = zip(bytes, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("\(golden): first difference at byte \(first.offset)")
        }
    }

    @Test(arguments: GoldenCase.all)
    func goldenFileReadsBackWithItsOrientation(_ golden: GoldenCase) throws {
        let info = try MovieInfo(source: RandomAccessFile(path: golden.path, mode: .read))
        let video = try #require(info.videoTrack)
        #expect(video.orientation == golden.orientation)
        #expect(video.codec == (golden.isHEVC ? "hvc1" : "avc1"))
        #expect(video.sampleCount == UInt64(golden.frames))
        #expect(info.movieHeader.timescale == 600)
        #expect(info.movieHeader.matrix == .identity)
        #expect(info.fileType == FileTypeAtom.quickTime)
        #expect(info.tree.atoms.map(\.type) == ["ftyp", "wide", "mdat", "moov"])
        #expect(info.tracks.count == (golden.audio == nil ? 1 : 2))
    }
}
