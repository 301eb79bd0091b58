import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// `sdtp`, as Apple writes it: each video sample's byte says whether it is an I picture and
/// whether another picture refers to it, so a player scrubbing can skip the disposable ones.
@Suite struct SampleDependencyTests {
    /// The atom's bytes written out by hand: version and flags, then one byte a sample.
    @Test func theAtomIsAByteASample() throws {
        let atom = SampleDependencyTypeAtom(flags: [0x24, 0x14, 0x18, 0x18])
        #expect(atom.encoded == [0, 0, 0, 16, 0x73, 0x64, 0x74, 0x70, 0, 0, 0, 0, 0x24, 0x14, 0x18, 0x18])
        var reader = ByteReader(Array(atom.encoded.dropFirst(8)), context: "sdtp")
        #expect(try SampleDependencyTypeAtom(body: &reader) == atom)
        #expect(SampleDependencyTypeAtom.flags(isIndependent: true, isReferenced: true) == 0x24)
        #expect(SampleDependencyTypeAtom.flags(isIndependent: false, isReferenced: true) == 0x14)
        #expect(SampleDependencyTypeAtom.flags(isIndependent: false, isReferenced: false) == 0x18)
        #expect(SampleDependencyTypeAtom.flags(isIndependent: false, isReferenced: nil) == 0x10)
    }

    /// H.264 by `nal_ref_idc`, HEVC by the sub-layer non-reference types; none without a picture.
    @Test func referenceIsReadFromTheNALUnitHeaders() {
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x09, 0x06, 0x65], isHEVC: false) == true)  // AUD, SEI, IDR
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x41], isHEVC: false) == true)  // P, nal_ref_idc 2
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x06, 0x01], isHEVC: false) == false)  // B, nal_ref_idc 0
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x06], isHEVC: false) == nil)
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x00], isHEVC: true) == false)  // TRAIL_N
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x02], isHEVC: true) == true)  // TRAIL_R
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x4E, 0x26], isHEVC: true) == true)  // SEI, IDR_W_RADL
        #expect(SampleDependencyTypeAtom.isReferenced(nalHeaders: [0x40, 0x42, 0x44], isHEVC: true) == nil)  // VPS, SPS, PPS
    }

    /// A movie muxed from x264's and x265's B-frame streams: one byte a sample, I pictures
    /// independent, and a sample disposable exactly when none of its NAL units is a reference,
    /// as the stream's own headers say; `movrec inspect` counts them.
    @Test(arguments: ["testsrc-bframes.264", "testsrc-bframes.265"])
    func aMuxedMovieMarksItsDisposablePictures(_ stream: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("muxed.mov")
        let mux = try run(movrecPath(), ["mux", path, "--video", fixture(stream)])
        #expect(mux.status == 0, "\(mux.error)")
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        let info = try MovieInfo(source: file)
        let table = try #require(info.videoTrack?.sampleTable)
        let flags = try #require(table.dependencies?.flags)
        let samples = try table.samples()
        #expect(flags.count == samples.count)
        let isHEVC = stream.hasSuffix(".265")
        for (sample, flag) in zip(samples, flags) {
            let data = try file.read(at: sample.offset, count: Int(sample.size))
            let headers = data.withUnsafeBytes { MovieWriter.nalHeaders(lengthPrefixed: $0) }
            let referenced = try #require(SampleDependencyTypeAtom.isReferenced(nalHeaders: headers, isHEVC: isHEVC) as Bool?)
            #expect(flag == SampleDependencyTypeAtom.flags(isIndependent: sample.isSync, isReferenced: referenced))
        }
        let disposable = flags.filter { $0 & 0x0C == 0x08 }.count
        #expect(disposable > 0 && flags.first == 0x24, "\(flags.prefix(8))")
        let report = try run(movrecPath(), ["inspect", path])
        #expect(report.output.contains("sample dependencies (sdtp): \(flags.filter { $0 >> 4 == 2 }.count) independent, \(disposable) disposable, of \(flags.count)"),
                "\(report.output)")
        #expect(try decodeAllFrames(path).errors.isEmpty)
    }
}
