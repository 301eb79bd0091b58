import Testing
@testable import MovieContainer

/// The live stream's CMAF pieces: `prft` and `emsg` against bytes written out from their specs,
/// the initialization segment's boxes, and a chunk whose run points at its media.
@Suite struct CMAFWriterTests {
    @Test func prftCarriesTheCaptureTimeInNTP() throws {
        // 1970-01-01 00:00:01.5 UTC: 2208988801 seconds since 1900 (0x83AA7E81), half a second 0x80000000.
        let ntp = ProducerReferenceTimeAtom.ntpTimestamp(unixNanoseconds: 1_500_000_000)
        #expect(ntp == 0x83AA_7E81_8000_0000)
        let atom = ProducerReferenceTimeAtom(referenceTrackID: 1, ntpTimestamp: ntp, mediaTime: 90_000)
        #expect(atom.encoded == hex("00000020 70726674 01000018 00000001 83AA7E81 80000000 00000000 00015F90"))
        #expect(try ProducerReferenceTimeAtom(bodyBytes: atom.encoded.dropFirst(8)) == atom)
        #expect(atom.unixNanoseconds == 1_500_000_000)
    }

    @Test func emsgVersion1RoundTrips() throws {
        let atom = EventMessageAtom(schemeIDURI: "urn:a", value: "", timescale: 90_000, presentationTime: 3000, id: 7,
                                    messageData: Array("{}".utf8))
        #expect(atom.encoded == hex("00000029 656D7367 01000000 00015F90 0000000000000BB8 FFFFFFFF 00000007 75726E3A6100 00 7B7D"))
        #expect(try EventMessageAtom(bodyBytes: atom.encoded.dropFirst(8)) == atom)
    }

    func writer(audio: Bool = true) throws -> CMAFWriter {
        let video = VideoTrackFormat(h264: try AVCDecoderConfiguration(parameterSets: [highSPS, highPPS]), timescale: 90_000)
        let aac = try AACFormat(audioSpecificConfig: [0x11, 0x90], primingFrames: 1024)
        return CMAFWriter(video: video, audio: audio ? aac : nil)
    }

    @Test func theInitializationSegmentIsCMAFWithNoSamples() throws {
        let cmaf = try writer()
        #expect(cmaf.codecs == "avc1.64000B,mp4a.40.2")
        let orientation = try VideoOrientation(rotationAngle: 90)
        let segment = cmaf.initializationSegment(orientation: orientation)
        let tree = try AtomTree(source: InMemoryMovieSource(segment))
        #expect(tree.atoms.map(\.type) == ["ftyp", "moov"])
        let ftyp = try FileTypeAtom(bodyBytes: segment[8..<Int(tree.atoms[0].size)])
        #expect(ftyp.majorBrand == "iso6" && ftyp.compatibleBrands.contains("cmfc"))
        let moov = tree.atoms[1]
        #expect(moov.child("mvex")?.children("trex").count == 2)
        let traks = moov.children("trak")
        #expect(traks.count == 2)
        let tkhd = try #require(traks[0].child("tkhd")).decode(TrackHeaderAtom.self)
        #expect(VideoOrientation(matrix: tkhd.matrix) == orientation)
        for trak in traks {
            let stsz = try #require(trak.descendant(["mdia", "minf", "stbl", "stsz"])?.body)
            #expect(Array(stsz.suffix(4)) == [0, 0, 0, 0], "no samples in the initialization segment")
        }
        let audioEntry = try #require(traks[1].descendant(["mdia", "minf", "stbl", "stsd"])).decode(SampleDescriptionAtom.self).entries[0]
        #expect(audioEntry.format == "mp4a")
        // ISO's AudioSampleEntry: version 0, 2 channels, 16 bits, 48 kHz as 16.16, then esds.
        #expect(Array(audioEntry.body[8..<28]) == hex("0000 0000 00000000 0002 0010 0000 0000 BB800000"))
    }

    @Test func aChunkPointsItsRunsAtItsMedia() throws {
        var cmaf = try writer()
        let picture = CMAFSample(data: [0, 0, 0, 2, 0x65, 0x88], decodeTime: 6000, duration: 3000, isSync: true)
        let sound = CMAFSample(data: [0x21, 0x10, 0x04], decodeTime: 3072, duration: 1024, isSync: true)
        let chunk = cmaf.chunk(video: [picture], audio: [sound], captureTime: 1_500_000_000)
        let second = cmaf.chunk(video: [picture], audio: [], captureTime: nil)
        let tree = try AtomTree(source: InMemoryMovieSource(chunk))
        #expect(tree.atoms.map(\.type) == ["prft", "moof", "mdat"])
        let moof = tree.atoms[1]
        #expect(try moof.child("mfhd")?.decode(MovieFragmentHeaderAtom.self).sequenceNumber == 1)
        let mdatPayload = Int(tree.atoms[2].offset) + 8
        var at = mdatPayload
        for (traf, sample) in zip(moof.children("traf"), [picture, sound]) {
            let run = try #require(traf.child("trun")).decode(TrackRunAtom.self)
            #expect(try traf.child("tfdt")?.decode(TrackFragmentDecodeTimeAtom.self).baseMediaDecodeTime == sample.decodeTime)
            #expect(Int(moof.offset) + Int(run.dataOffset ?? 0) == at, "the run's data offset counts from the moof")
            #expect(Array(chunk[at..<(at + sample.data.count)]) == sample.data)
            at += sample.data.count
        }
        #expect(at == chunk.count)
        let next = try AtomTree(source: InMemoryMovieSource(second))
        #expect(next.atoms.map(\.type) == ["moof", "mdat"])
        #expect(try next.atoms[0].child("mfhd")?.decode(MovieFragmentHeaderAtom.self).sequenceNumber == 2)
    }
}
