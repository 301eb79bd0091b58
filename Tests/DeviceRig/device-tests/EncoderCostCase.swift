import MovieCapture
@_spi(DeviceRig) import MovieEncoding

/// The benchmark case m2m-cost: what a picture costs this process on the memory-to-memory
/// path, beside what x264 costs for the same pictures, in the same guest.
extension Cases {
    /// One way pictures reach the encoder: vivid's format, imported or copied, the layout adopted.
    private struct CostVariant {
        var key: String
        var cameraFormat: V4L2PixelFormat
        var imports: Bool
        var adopts: Bool
    }

    private static let costVariants = [
        CostVariant(key: "m2m", cameraFormat: .yuv420, imports: false, adopts: false),
        CostVariant(key: "m2m_import", cameraFormat: .yuv420, imports: true, adopts: false),
        CostVariant(key: "m2m_yuyv_converted", cameraFormat: .yuyv, imports: false, adopts: false),
        CostVariant(key: "m2m_yuyv_lent", cameraFormat: .yuyv, imports: true, adopts: true),
    ]

    /// Alternates, three times: 375 of vivid's 640x480 pictures through vicodec's encoder in each
    /// of ``costVariants`` — I420 copied into its OUTPUT buffers, I420 imported as vivid's
    /// DMA-BUFs, YUYV converted to I420 at capture and copied, YUYV lent and imported — and 5 s
    /// recorded from the same camera with x264 (the encoding thread's CPU time, sampled 0.3 s
    /// before the end, over the pictures encoded by then). For each variant: the capture thread's
    /// user and system CPU time in the stream's calls (the copy in where there is one, the ioctls,
    /// the copy out, and vicodec's own encoding where the kernel runs it inside them), and its
    /// user time over the whole run (a conversion at capture included). Prints microseconds per
    /// picture.
    func memoryToMemoryCost(_ record: CaseRecord) async throws {
        var samples: [String: [Double]] = [:]
        for _ in 0..<3 {
            // 15 s of pictures each: the guest charges CPU time in whole ticks.
            let count = 375
            for variant in Self.costVariants {
                let (stream, run, camera) = try encodeFromCamera(gop: 16, imports: variant.imports, cameraFormat: variant.cameraFormat,
                                                                 adopts: variant.adopts, record) { EncoderRun(stream: $0, phases: [count]) }
                let finished = await run.waitUntilFinished(seconds: 90)
                camera.stop()
                stream.close()
                guard finished else { throw CaseError("\(variant.key): the encoding did not finish within 90 s: \(run.progress)") }
                if let error = run.error { throw CaseError("\(variant.key): encoding failed: \(error)") }
                record.expect(stream.importedPictureCount == (variant.imports ? count : 0),
                              "\(variant.key): \(stream.importedPictureCount) of \(count) pictures imported, expected \(variant.imports ? count : 0)")
                samples["\(variant.key)_user_us", default: []].append(Double(run.cpu.user) / Double(count))
                samples["\(variant.key)_system_us", default: []].append(Double(run.cpu.system) / Double(count))
                samples["\(variant.key)_thread_user_us", default: []].append(Double(run.threadUser) / Double(count - 1))
            }

            let seconds = 5.0
            let recording = try await Recorder.record(camera: try self.camera(.yuv420), microphone: nil, to: report.path("m2m-cost-x264.mov"),
                                                      encoder: encoder, maxDuration: .seconds(5))
            let ticks = recording.threadTicks["movrec-encode"] ?? 0
            let encoded = Double(recording.result.frameCount) * (seconds - 0.3) / seconds
            record.expect(recording.result.isPlayable && ticks > 0, "the x264 recording: \(recording.result), \(ticks) ticks")
            samples["x264_us", default: []].append(Double(ticks) * 10_000 / max(1, encoded))
        }
        for (key, values) in samples { record.set(key, values.map { String(format1: $0) }.joined(separator: ",")) }
        record.set("x264_preset", encoder.preset)
    }
}
