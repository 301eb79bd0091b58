import Testing
@testable import MovieContainer

/// Repair keeps fragments only while their video samples are whole NAL units: a fragment whose
/// media was zero-filled by a power cut is dropped with everything after it, also in a movie
/// written without checksums.
@Suite struct RepairSoundnessTests {
    /// A fragmented recording cut off after its third fragment: 1-second fragments of 30 fps
    /// video, each sample one length-prefixed IDR or non-IDR slice NAL unit.
    static func cutRecording(checksums: Bool) throws -> (bytes: [UInt8], mdats: [AtomNode]) {
        var configuration = MovieWriter.Configuration(creationTime: QuickTimeTimestamp(unixSeconds: 1_767_225_600), metadata: [])
        configuration.fragmentInterval = .seconds(1)
        configuration.checksumsFragments = checksums
        let sink = InMemoryMovieSink()
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let video = try writer.addVideoTrack(VideoTrackFormat(
            h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 600))
        for n in 0..<100 {
            let payload = [UInt8](repeating: UInt8(1 + n % 200), count: 200 + n % 50)
            let nal: [UInt8] = [n % 30 == 0 ? 0x65 : 0x41] + payload
            let length = UInt32(nal.count)
            let sample = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + nal
            try writer.appendVideoSample(sample, to: video, decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20,
                                         isSync: n % 30 == 0)
        }
        // No finish: the process was cut off here.
        let tree = try AtomTree(source: InMemoryMovieSource(sink.bytes))
        return (sink.bytes, tree.atoms.filter { $0.type == "mdat" })
    }

    @Test(arguments: [false, true])
    func aFragmentWithZeroedMediaIsDroppedWithWhatFollows(checksums: Bool) throws {
        let (bytes, mdats) = try Self.cutRecording(checksums: checksums)
        #expect(mdats.count >= 3, "fragments written: \(mdats.count)")
        let intact = InMemoryMovieFile(bytes, capacity: bytes.count * 2)
        #expect(try MovieRepair.repair(intact).fragmentCount == mdats.count)
        // The first sample's length field in the second fragment's media, zero-filled.
        var damaged = bytes
        let start = Int(mdats[1].offset) + mdats[1].headerSize
        damaged.replaceSubrange(start..<start + 4, with: [0, 0, 0, 0])
        let report = try MovieRepair.repair(InMemoryMovieFile(damaged, capacity: damaged.count * 2))
        #expect(report.fragmentCount == 1, "kept \(report.fragmentCount) fragments")
        #expect(report.sampleCounts[1] == 1, "the first fragment holds the first frame alone: \(report)")
    }
}
