import Testing
@testable import MovieContainer

/// With `Durability.syncEachFragment`, a fragment's media is on the disk before the `moof` that
/// points at it is written: a synced header never points at media a power cut may have lost.
@Suite struct SyncOrderTests {
    /// A sink that keeps the movie in memory and a journal of what was done to it.
    final class JournalingSink: MovieByteSink {
        enum Operation: Equatable { case write(offset: UInt64, count: Int, type: FourCC?), sync }
        let file = InMemoryMovieSink()
        private(set) var journal: [Operation] = []
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
            // The atom type, when the write starts with an atom header.
            let type = bytes.count >= 8 ? FourCC(rawValue: bytes[4..<8].reduce(0) { $0 << 8 | UInt32($1) }) : nil
            journal.append(.write(offset: offset, count: bytes.count, type: type))
            try file.write(bytes, at: offset)
        }
        func synchronize() throws { journal.append(.sync) }
        func truncate(to size: UInt64) throws { try file.truncate(to: size) }
        func makeScratchStorage() throws -> (any MovieScratchStorage)? { nil }
    }

    @Test func theMediaIsSyncedBeforeTheHeaderThatPointsAtIt() throws {
        var configuration = MovieWriter.Configuration(creationTime: QuickTimeTimestamp(unixSeconds: 1_767_225_600), metadata: [])
        configuration.fragmentInterval = .seconds(1)
        configuration.durability = .syncEachFragment
        let sink = JournalingSink()
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let video = try writer.addVideoTrack(VideoTrackFormat(
            h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 600))
        for n in 0..<150 {
            try writer.appendVideoSample([UInt8](repeating: UInt8(n & 0x7F), count: 300), to: video,
                                         decodeTime: Int64(n) * 20, presentationTime: Int64(n) * 20, isSync: n % 30 == 0)
        }
        try writer.finish(endTimes: [video: 150 * 20])
        // Each moof written while recording, and the write of the media that follows it.
        let moofs = sink.journal.indices.filter { if case .write(_, _, "moof") = sink.journal[$0] { true } else { false } }
        #expect(moofs.count >= 4, "fragments written: \(moofs.count)")
        for header in moofs {
            guard case .write(let offset, let count, _) = sink.journal[header] else { continue }
            let media = try #require(sink.journal.firstIndex { op in
                if case .write(let at, _, _) = op { at == offset + UInt64(count) } else { false }
            }, "the media after the moof at \(offset)")
            #expect(media < header, "the media of the moof at \(offset) is written before it")
            #expect(sink.journal[media..<header].contains(.sync), "a sync between the media and the moof at \(offset)")
            #expect(sink.journal[header...].contains(.sync), "and one after the moof")
        }
    }
}
