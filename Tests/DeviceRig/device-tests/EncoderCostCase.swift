@_spi(DeviceRig) import MovieEncoding

/// The benchmark case m2m-cost: what a picture costs this process on the memory-to-memory
/// path, beside what x264 costs for the same pictures, in the same guest.
extension Cases {
    /// Alternates, three times: 375 of vivid's 640x480 I420 pictures through vicodec's encoder
    /// copied into its OUTPUT buffers, 375 imported as vivid's DMA-BUFs (each the capture
    /// thread's CPU time in the stream's calls: the copy in where there is one, the ioctls, the
    /// copy out, and vicodec's own encoding where the kernel runs it inside them), and 5 s recorded
    /// from the same camera with x264 (the encoding thread's CPU time, sampled 0.3 s before the
    /// end, over the pictures encoded by then). Prints microseconds per picture.
    func memoryToMemoryCost(_ record: CaseRecord) async throws {
        var m2mUser: [Double] = [], m2mSystem: [Double] = [], importUser: [Double] = [], importSystem: [Double] = []
        var x264: [Double] = []
        for _ in 0..<3 {
            // 15 s of pictures each: the guest charges CPU time in whole ticks.
            let count = 375
            for imports in [false, true] {
                let (stream, run, camera) = try encodeFromCamera(gop: 16, imports: imports, record) { EncoderRun(stream: $0, phases: [count]) }
                let finished = await run.waitUntilFinished(seconds: 90)
                camera.stop()
                stream.close()
                guard finished else { throw CaseError("the encoding did not finish within 90 s: \(run.progress)") }
                if let error = run.error { throw CaseError("encoding failed: \(error)") }
                record.expect(stream.importedPictureCount == (imports ? count : 0),
                              "\(stream.importedPictureCount) of \(count) pictures imported, expected \(imports ? count : 0)")
                if imports {
                    importUser.append(Double(run.cpu.user) / Double(count))
                    importSystem.append(Double(run.cpu.system) / Double(count))
                } else {
                    m2mUser.append(Double(run.cpu.user) / Double(count))
                    m2mSystem.append(Double(run.cpu.system) / Double(count))
                }
            }

            let seconds = 5.0
            let recording = try await Recorder.record(camera: try self.camera(.yuv420), microphone: nil, to: report.path("m2m-cost-x264.mov"),
                                                      encoder: encoder, maxDuration: .seconds(5))
            let ticks = recording.threadTicks["movrec-encode"] ?? 0
            let encoded = Double(recording.result.frameCount) * (seconds - 0.3) / seconds
            record.expect(recording.result.isPlayable && ticks > 0, "the x264 recording: \(recording.result), \(ticks) ticks")
            x264.append(Double(ticks) * 10_000 / max(1, encoded))
        }
        func list(_ values: [Double]) -> String { values.map { String(format1: $0) }.joined(separator: ",") }
        record.set("m2m_user_us", list(m2mUser))
        record.set("m2m_system_us", list(m2mSystem))
        record.set("m2m_import_user_us", list(importUser))
        record.set("m2m_import_system_us", list(importSystem))
        record.set("x264_preset", encoder.preset)
        record.set("x264_us", list(x264))
    }
}
