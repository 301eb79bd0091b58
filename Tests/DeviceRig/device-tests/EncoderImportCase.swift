@_spi(DeviceRig) import MovieEncoding

/// Pictures imported from vivid's DMA-BUFs with copies, or a DMA-BUF vicodec refuses, among them:
/// the encoder turns its OUTPUT queue from imports to buffers of its own (and back) without
/// losing a picture.
extension Cases {
    /// 30 of vivid's pictures at GOP 16; 7 and 21 go in as copies, keyframes are asked before 10
    /// and 25. A copy among imports ends the stream there (drain, a keyframe); the next stream
    /// start (a keyframe's reset) turns back to imports.
    func memoryToMemoryImportFallback(_ record: CaseRecord) async throws {
        let (stream, intra) = try await encodeAndDecode(count: 30, record) {
            EncoderRun(stream: $0, phases: [30], keyframes: [10, 25], copying: [7, 21], keeping: 30)
        }
        // Imported: 1–6, 10–20, 25–30; copied: 7–9 (the queue stays copies until a stream starts), 21–24.
        record.expect(stream.importedPictureCount == 23 && stream.copiedPictureCount == 7,
                      "imported \(stream.importedPictureCount), copied \(stream.copiedPictureCount); expected 23 and 7")
        record.expect(intra == [1, 7, 10, 21, 25], "intra pictures \(intra), expected 1, 7, 10, 21, 25 (each stream's start)")
    }

    /// 20 of vivid's pictures; the 8th claims a DMA-BUF whose descriptor is `/dev/null`'s. vicodec
    /// refuses the import (VIDIOC_QBUF: EINVAL); the encoder drains, copies that picture and every
    /// later one, and nothing is lost, doubled or failed.
    func memoryToMemoryImportRefused(_ record: CaseRecord) async throws {
        let (stream, intra) = try await encodeAndDecode(count: 20, record) {
            EncoderRun(stream: $0, phases: [20], forging: [8], keeping: 20)
        }
        record.expect(stream.importedPictureCount == 7 && stream.copiedPictureCount == 13 && !stream.importsPictures,
                      "imported \(stream.importedPictureCount), copied \(stream.copiedPictureCount); expected 7 and 13, copying at the end")
        record.expect(intra == [1, 8], "intra pictures \(intra), expected 1 and 8 (the refused picture starts a stream)")
    }

    /// Runs `count` of vivid's pictures at GOP 16 through the run `makeRun` makes (keeping every
    /// picture), then checks that each came out once, in order, without an error, and decodes
    /// through vicodec's decoder within ``roundTripPSNRFloor`` of what went in. Returns the
    /// (closed) stream and the intra pictures' numbers.
    private func encodeAndDecode(count: Int, _ record: CaseRecord, _ makeRun: (V4L2EncoderStream) -> EncoderRun)
        async throws -> (V4L2EncoderStream, [Int])
    {
        let (stream, run, camera) = try encodeFromCamera(gop: 16, record, makeRun)
        let finished = await run.waitUntilFinished(seconds: 60)
        camera.stop()
        stream.close()
        guard finished else { throw CaseError("the encoding did not finish within 60 s: \(run.progress)") }
        if let error = run.error { throw CaseError("encoding failed where it should have gone on: \(error)") }
        let coded = run.phases[0]
        record.expect(coded.map(\.number) == (1...UInt64(count)).map { $0 }, "numbers \(coded.map(\.number)), expected 1…\(count)")
        let intra = coded.enumerated().filter { FWHTFrame($0.1.bytes)?.isIntra == true }.map { $0.0 + 1 }
        record.set("intra", intra.map(String.init).joined(separator: ","))
        guard let decoder = Self.vicodecNode("stateful-decoder") else { throw CaseError("vicodec's stateful-decoder node is missing") }
        let (decoded, _) = try Self.decode(coded.map(\.bytes), on: decoder, pictureSize: 640 * 480 * 3 / 2)
        let scores = zip(run.pictures, decoded).map { Self.lumaPSNR($0, $1, pixels: 640 * 480) }
        record.set("psnr_min", String(format1: scores.min() ?? 0))
        record.expect(scores.count == count && scores.allSatisfy { $0 >= Self.roundTripPSNRFloor },
                      "luma PSNR per picture \(scores.map { String(format1: $0) }), expected \(count) at or above \(Self.roundTripPSNRFloor) dB")
        return (stream, intra)
    }
}
