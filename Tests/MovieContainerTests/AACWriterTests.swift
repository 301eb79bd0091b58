import Testing
@testable import MovieContainer

/// AAC tracks through the writer without an encoder: access units of made-up bytes, an
/// `AudioSpecificConfig` for AAC-LC, and the tables, edit list, fragments and repair checked
/// against what they must say.
@Suite struct AACWriterTests {
    /// AAC-LC, 48 kHz, stereo: object type 2, frequency index 3, channel configuration 2.
    static let lc48kStereo: [UInt8] = [0x11, 0x90]

    static func format(priming: UInt32 = 1024) throws -> AACFormat {
        try AACFormat(audioSpecificConfig: lc48kStereo, primingFrames: priming, averageBitRate: 128_000)
    }

    /// Access unit `n`: a size that varies, as an encoder's do.
    static func packet(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(n % 251), count: 300 + (n * 37) % 200) }

    /// A movie of `seconds` of 30 fps video (B-frames if asked: decode times start two frames
    /// early) and 48 kHz AAC whose first input frame sits at `audioStart`, cut off before it was
    /// finished when `finished` is false.
    static func write(seconds: Int, video: Bool, bFrames: Bool = false, audioStart: Int64 = 0, fragmented: Bool,
                      finished: Bool = true) throws -> [UInt8] {
        var configuration = MovieWriter.Configuration(creationTime: QuickTimeTimestamp(unixSeconds: 1_767_225_600))
        if fragmented { configuration.fragmentInterval = .seconds(1) }
        let sink = InMemoryMovieSink()
        let writer = MovieWriter(sink: sink, configuration: configuration)
        let videoTrack = video ? try writer.addVideoTrack(VideoTrackFormat(
            h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 600)) : nil
        let audio = try writer.addAudioTrack(AudioTrackFormat(aac: try format()))
        let packets = (seconds * 48_000 + 1024) / 1024 + 1
        var next = 0
        for n in 0..<(seconds * 30) {
            if let videoTrack {
                let decode = Int64(n - (bFrames ? 2 : 0)) * 20
                let nal: [UInt8] = [n % 30 == 0 ? 0x65 : 0x41] + [UInt8](repeating: 7, count: 100)
                try writer.appendVideoSample([0, 0, 0, UInt8(nal.count)] + nal, to: videoTrack, decodeTime: decode,
                                             presentationTime: Int64(n) * 20, isSync: n % 30 == 0)
            }
            // The audio in step: access units whose frames end by this frame's end.
            while next < packets, Int64(next) * 1024 < Int64(n + 1) * 1600 + 1024 {
                try writer.appendAudioPacket(packet(next), to: audio, startTime: audioStart)
                next += 1
            }
        }
        while next < packets {
            try writer.appendAudioPacket(packet(next), to: audio, startTime: audioStart)
            next += 1
        }
        if finished {
            var ends: [TrackID: Int64] = [audio: audioStart + Int64(seconds) * 48_000]
            if let videoTrack { ends[videoTrack] = Int64(seconds * 30 - (bFrames ? 2 : 0)) * 20 }
            try writer.finish(endTimes: ends)
        }
        return sink.bytes
    }

    static func audioTrack(_ bytes: [UInt8]) throws -> TrackInfo {
        try #require(try MovieInfo(source: InMemoryMovieSource(bytes)).tracks.first { $0.mediaType == "soun" })
    }

    @Test(arguments: [false, true])
    func theEditListHidesThePrimingAndEndsWithTheInput(fragmented: Bool) throws {
        let track = try Self.audioTrack(try Self.write(seconds: 3, video: true, fragmented: fragmented))
        #expect(track.editList == [EditListAtom.Entry(segmentDuration: 1800, mediaTime: 1024)])
        let samples = try #require(track.sampleTable).samples()
        #expect(samples.count == (3 * 48_000 + 1024) / 1024 + 1)
        #expect(samples.allSatisfy { $0.duration == 1024 && $0.isSync })
        #expect(samples.enumerated().allSatisfy { Int($1.size) == Self.packet($0).count }, "stsz holds each access unit's size")
        #expect(track.mediaHeader.timescale == 48_000 && track.mediaHeader.duration == UInt64(samples.count) * 1024)
        let aac = try #require(track.aacFormat)
        #expect(aac.primingFrames == 1024 && aac.sampleRate == 48_000 && aac.channelCount == 2 && aac.objectType == 2)
        // esds declares what was measured: the average rate and the largest access unit.
        let bytes = samples.reduce(0) { $0 + Int($1.size) }
        #expect(aac.averageBitRate == UInt32((Double(bytes * 8) / (Double(samples.count) * 1024 / 48_000)).rounded()))
        #expect(aac.bufferSize == UInt32(samples.map(\.size).max()!) && aac.maxBitRate >= aac.averageBitRate)
    }

    @Test func theRollGroupCoversEveryAccessUnit() throws {
        let bytes = try Self.write(seconds: 1, video: false, fragmented: false)
        let tree = try AtomTree(source: InMemoryMovieSource(bytes))
        let stbl = try #require(tree.atoms.first { $0.type == "moov" }?.descendant(["trak", "mdia", "minf", "stbl"]))
        #expect(try stbl.child("sgpd")?.decode(SampleGroupDescriptionAtom.self).rollDistance == -1)
        #expect(try stbl.child("sbgp")?.decode(SampleToGroupAtom.self).sampleCount == UInt32(try Self.audioTrack(bytes).sampleCount))
    }

    /// A fragmented recording cut off and repaired puts the audio where a normal finish does:
    /// audio alone, with video without B-frames, with B-frames, and audio starting late.
    @Test(arguments: [(false, false, Int64(0)), (true, false, 0), (true, true, 0), (true, true, 4_800)])
    func repairPlacesTheAudioAsAFinishDoes(video: Bool, bFrames: Bool, audioStart: Int64) throws {
        let cut = try Self.write(seconds: 4, video: video, bFrames: bFrames, audioStart: audioStart, fragmented: true, finished: false)
        let file = InMemoryMovieFile(cut, capacity: cut.count * 2)
        let report = try MovieRepair.repair(file)
        #expect(report.fragmentCount >= 3)
        let repaired = try Self.audioTrack(file.bytes)
        let start = try #require(repaired.editList.last)
        #expect(start.mediaTime == 1024, "the encoder's delay is hidden: \(repaired.editList)")
        let gap = repaired.editList.count == 2 ? repaired.editList[0].segmentDuration : 0
        #expect(gap == UInt64(audioStart / 80), "an empty edit only for audio that starts late: \(repaired.editList)")
        #expect(repaired.aacFormat?.primingFrames == 1024)
    }

    /// The header of a fragmented recording already says where the audio starts (an edit of
    /// duration 0, "to the end of the fragments"), and each fragment's AAC run lists every
    /// access unit's size with the decode time counted from the first input frame.
    @Test func fragmentsCarryTheDelayAndOneEntryPerAccessUnit() throws {
        let cut = try Self.write(seconds: 2, video: false, fragmented: true, finished: false)
        let tree = try AtomTree(source: InMemoryMovieSource(cut))
        let header = try #require(tree.atoms.first { $0.type == "moov" })
        #expect(try header.descendant(["trak", "edts", "elst"])?.decode(EditListAtom.self).entries
                == [EditListAtom.Entry(segmentDuration: 0, mediaTime: 1024)])
        var expected: UInt64 = 0
        for moof in tree.atoms where moof.type == "moof" {
            let traf = try #require(moof.child("traf"))
            #expect(try traf.child("tfhd")?.decode(TrackFragmentHeaderAtom.self).defaultSampleDuration == 1024)
            #expect(try traf.child("tfdt")?.decode(TrackFragmentDecodeTimeAtom.self).baseMediaDecodeTime == expected)
            let run = try #require(try traf.child("trun")?.decode(TrackRunAtom.self))
            #expect(run.samples.count == Int(run.sampleCount) && run.samples.allSatisfy { $0.size != nil })
            expected += UInt64(run.sampleCount) * 1024
        }
        #expect(expected > 0)
    }

    @Test func pcmAndAACAppendsAreNotMixedUp() throws {
        let writer = MovieWriter(sink: InMemoryMovieSink(), configuration: .init(creationTime: QuickTimeTimestamp(unixSeconds: 0)))
        let aac = try writer.addAudioTrack(AudioTrackFormat(aac: try Self.format()))
        let pcm = try writer.addAudioTrack(AudioTrackFormat(pcm: .int16(sampleRate: 48_000, channelCount: 2)))
        #expect(throws: MovieWriterError.self) { try writer.appendAudioFrames([0, 0, 0, 0], to: aac) }
        #expect(throws: MovieWriterError.self) { try writer.appendAudioPacket([1, 2, 3], to: pcm) }
        #expect(throws: MovieWriterError.self) { try writer.appendAudioPacket([], to: aac) }
    }

    /// Configurations that are not AAC this library can describe are refused with the reason.
    @Test func badAudioSpecificConfigsAreRefused() {
        let cases: [([UInt8], String)] = [([], "too short"), ([0x11], "too short"), ([0x16, 0x90], "reserved"),
                                          ([0x11, 0x80], "channel configuration is 0"), ([0xF8, 0x00], "ends before")]
        for (config, reason) in cases {
            do {
                _ = try AACFormat(audioSpecificConfig: config, primingFrames: 0)
                Issue.record("\(config) was accepted")
            } catch {
                #expect(error.message.contains(reason), "\(config): \(error.message)")
            }
        }
    }

    /// Every prefix and every single-byte change of a real `mp4a` description either reads or
    /// throws a format error: no trap, whatever a hostile file holds.
    @Test func damagedSampleDescriptionsThrowInsteadOfTrapping() throws {
        let entry = AACSampleEntry(aac: try Self.format()).descriptionEntry
        #expect(try AACSampleEntry(entry).aac.audioSpecificConfig == Self.lc48kStereo)
        var read = 0
        for length in 0..<entry.body.count {
            if (try? AACSampleEntry(.init(format: "mp4a", body: Array(entry.body.prefix(length))))) != nil { read += 1 }
        }
        for index in entry.body.indices {
            for value: UInt8 in [0x00, 0x7F, 0x80, 0xFF] {
                var body = entry.body
                body[index] = value
                _ = try? AACSampleEntry(.init(format: "mp4a", body: body))
            }
        }
        #expect(read < entry.body.count, "a description cut before its esds does not read")
    }

    @Test func ninetySixKilohertzIsAVersion2Description() throws {
        let aac = try AACFormat(audioSpecificConfig: [0x10, 0x10], primingFrames: 1024)  // LC, 96 kHz, stereo
        #expect(aac.sampleRate == 96_000)
        let entry = AACSampleEntry(aac: aac).descriptionEntry
        #expect(entry.body[8] == 0 && entry.body[9] == 2, "version 2")
        #expect(try AACSampleEntry(entry).aac.sampleRate == 96_000)
    }
}
