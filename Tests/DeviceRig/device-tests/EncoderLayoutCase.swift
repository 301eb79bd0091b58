@_spi(DeviceRig) import MovieCapture
@_spi(DeviceRig) import MovieEncoding

/// A YUYV camera into an encoder that takes YUYV: vivid's pictures go in in the camera's own
/// layout, never converted to I420.
extension Cases {
    /// 30 of vivid's 640x480 YUYV pictures lent as they are, GOP 16; picture 7 goes in as a copy
    /// (I420, as the recording's reserve copies are) and a keyframe is asked before 10.
    /// `imports`: the camera's buffers imported as DMA-BUFs, else their rows copied.
    ///
    /// Every picture comes out once, in order; the stream starts in YUYV, the copy turns it to
    /// I420 (drained, intra at 7) and 8–9 go in as their planes, made on demand, until the
    /// keyframe's reset turns it back to YUYV. Only 7–9 are ever converted, and exactly the
    /// pictures that went in as YUYV are coded with full-height chroma (4:2:2); intra pictures
    /// start each stream and the GOP.
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
        let yuyv = Set(1...count).subtracting([7, 8, 9])
        record.expect(stream.importedPictureCount == (imports ? yuyv.count : 0),
                      "\(stream.importedPictureCount) pictures imported, expected \(imports ? yuyv.count : 0)")
        record.expect(run.conversions == 3, "\(run.conversions) pictures converted to I420, expected 3 (7–9)")
        let headers = coded.map { FWHTFrame($0.bytes) }
        let fullHeight = Set(headers.enumerated().filter { $0.1?.hasFullHeightChroma == true }.map { $0.0 + 1 })
        record.expect(fullHeight == yuyv, "pictures coded 4:2:2 \(fullHeight.sorted()), expected all but 7–9")
        let intra = headers.enumerated().filter { $0.1?.isIntra == true }.map { $0.0 + 1 }
        record.set("intra", intra.map(String.init).joined(separator: ","))
        record.expect(intra == [1, 7, 10, 26], "intra pictures \(intra), expected 1, 7, 10 (each stream's start) and 26 (the GOP)")
        record.set("imported", stream.importedPictureCount)
        record.set("converted", run.conversions)
    }
}
