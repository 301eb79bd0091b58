@_spi(DeviceRig) import MovieCapture
@_spi(DeviceRig) import MovieEncoding

/// A YUYV camera into an encoder that takes YUYV: vivid's pictures go in in the camera's own
/// layout, never converted to I420.
extension Cases {
    /// 30 of vivid's 640x480 YUYV pictures lent as they are, GOP 16; picture 7 goes in as a copy
    /// (I420, as the recording's reserve copies are) and a keyframe is asked before 10.
    /// `imports`: the camera's buffers imported as DMA-BUFs, else their rows copied.
    ///
    /// Every picture comes out once, in order, and every one is coded from YUYV (4:2:2 chroma):
    /// the copy is written as YUYV by libyuv. With imports the copy ends the stream (drained,
    /// intra at 7) and 8–9 go in as copied rows until the keyframe's reset turns the queue back
    /// to imports; copying, nothing but the keyframe resets it. Only the copy is ever converted
    /// to I420 (to make it); intra pictures start each stream and the GOP.
    func memoryToMemoryCameraLayout(imports: Bool, _ record: CaseRecord) async throws {
        let count = 30
        let (stream, run, camera) = try encodeFromCamera(gop: 16, imports: imports, cameraFormat: .yuyv, record) {
            EncoderRun(stream: $0, phases: [count], keyframes: [10], copying: [7])
        }
        let finished = await run.waitUntilFinished(seconds: 60)
        camera.stop()
        let layout = stream.pictureLayout
        stream.close()
        guard finished else { throw CaseError("the encoding did not finish within 60 s: \(run.progress)") }
        if let error = run.error { throw CaseError("encoding failed: \(error)") }
        let coded = run.phases[0]
        record.expect(coded.map(\.number) == (1...UInt64(count)).map { $0 }, "numbers \(coded.map(\.number)), expected 1…\(count)")
        record.expect(layout == .yuyv, "the OUTPUT layout at the end is \(layout), expected YUYV")
        let imported = imports ? count - 3 : 0
        record.expect(stream.importedPictureCount == imported && stream.copiedPictureCount == count - imported,
                      "imported \(stream.importedPictureCount), copied \(stream.copiedPictureCount); expected \(imported) and \(count - imported)")
        record.expect(run.conversions == 1, "\(run.conversions) pictures converted to I420, expected 1 (the copy, 7)")
        let headers = coded.map { FWHTFrame($0.bytes) }
        let fullHeight = headers.filter { $0?.hasFullHeightChroma == true }.count
        record.expect(fullHeight == count, "\(fullHeight) of \(count) pictures coded 4:2:2, expected all")
        let intra = headers.enumerated().filter { $0.1?.isIntra == true }.map { $0.0 + 1 }
        record.set("intra", intra.map(String.init).joined(separator: ","))
        let expected = imports ? [1, 7, 10, 26] : [1, 10, 26]
        record.expect(intra == expected, "intra pictures \(intra), expected \(expected) (each stream's start and the GOP)")
        record.set("imported", stream.importedPictureCount)
        record.set("converted", run.conversions)
    }
}
