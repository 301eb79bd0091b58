#if canImport(Glibc)
import Glibc
#endif
import MovieCapture
@_spi(DeviceRig) import MovieEncoding
import MovieContainer
import Synchronization

/// Cases for the V4L2 memory-to-memory encoder against vicodec's stateful encoder, which codes
/// FWHT (the kernel's own test codec): vivid's frames in, coded frames out.
extension Cases {
    /// The node of vicodec's device named `name` ("stateful-encoder", "stateful-decoder"), found
    /// by its name in sysfs: all three of vicodec's nodes answer QUERYCAP alike.
    static func vicodecNode(_ name: String) -> String? {
        for index in 0..<16 where firstLine(of: "/sys/class/video4linux/video\(index)/name") == name {
            return "/dev/video\(index)"
        }
        return nil
    }

    /// vivid → vicodec's encoder at 640x480 with a GOP of `gop`: every frame comes out once, in
    /// order, with the number it went in with; keyframes at least every `gop` frames; after a
    /// drain a restarted stream on the same device starts with a keyframe and loses nothing.
    /// `multiplanar` reloads vicodec with its multi-planar queues first (and back after).
    /// `imports`: vivid's buffers are imported as DMA-BUFs (every picture), else copied.
    func memoryToMemoryEncode(gop: Int32, multiplanar: Bool, imports: Bool = true, _ record: CaseRecord) async throws {
        if multiplanar { try reloadVicodec(["multiplanar=1"]) }
        defer { if multiplanar { try? reloadVicodec([]) } }
        let (stream, run, camera) = try encodeFromCamera(gop: gop, imports: imports, record) { EncoderRun(stream: $0, phases: [30, 10]) }
        defer { stream.close() }
        record.set("coded", "\(stream.codedWidth)x\(stream.codedHeight)")
        let finished = await run.waitUntilFinished(seconds: 60)
        camera.stop()
        guard finished else { throw CaseError("the encoding did not finish within 60 s: \(run.progress)") }
        if let error = run.error { throw CaseError("encoding failed: \(error)") }
        check(run.phases, gop: Int(gop), record)
        record.expect(stream.importedPictureCount == (imports ? 40 : 0) && stream.copiedPictureCount == (imports ? 0 : 40),
                      "pictures imported \(stream.importedPictureCount), copied \(stream.copiedPictureCount); expected all 40 \(imports ? "imported" : "copied")")
        record.set("imported", stream.importedPictureCount)
    }

    /// Each phase's coded frames: numbered as submitted, in order, each a whole FWHT frame of
    /// 640x480, the first of each phase and every `gop`th after it intra.
    private func check(_ phases: [[V4L2EncoderStream.CodedFrame]], gop: Int, _ record: CaseRecord) {
        var next: UInt64 = 1
        for (phase, frames) in phases.enumerated() {
            let numbers = frames.map(\.number)
            let expected = Array(next..<next + UInt64(phase == 0 ? 30 : 10))
            record.expect(numbers == expected, "phase \(phase): numbers \(numbers), expected \(expected)")
            next += UInt64(expected.count)
            let headers = frames.map { FWHTFrame($0.bytes) }
            record.expect(headers.allSatisfy { $0?.width == 640 && $0?.height == 480 },
                          "phase \(phase): frames that are not whole 640x480 FWHT frames: \(headers.enumerated().filter { $0.1 == nil || $0.1?.width != 640 }.map(\.offset))")
            let intra = headers.enumerated().filter { $0.1?.isIntra == true }.map(\.offset)
            record.set("phase\(phase)_frames", frames.count)
            record.set("phase\(phase)_intra", intra.map(String.init).joined(separator: ","))
            record.set("phase\(phase)_bytes", frames.map(\.bytes.count).reduce(0, +))
            let due = stride(from: 0, to: frames.count, by: gop)
            record.expect(due.allSatisfy { intra.contains($0) }, "phase \(phase): intra frames \(intra), expected every \(gop) from 0")
            if gop > 1 { record.expect(intra.count < frames.count, "phase \(phase): every frame intra with a GOP of \(gop)") }
        }
    }

    /// The stream's refusals: a coded format vicodec does not make, a size it clamps, a camera
    /// node and a decoder node each give a typed error naming the device and what it offers.
    func memoryToMemoryRefusals(_ record: CaseRecord) throws {
        guard let encoder = Self.vicodecNode("stateful-encoder"), let decoder = Self.vicodecNode("stateful-decoder") else {
            throw CaseError("vicodec's nodes are missing")
        }
        func refusal(_ path: String, _ coded: String, width: Int = 640, height: Int = 480) -> EncoderError? {
            let configuration = V4L2EncoderStream.Configuration(codedFormat: V4L2PixelFormat(coded)!, pictureFormat: .i420,
                                                                width: width, height: height, frameRate: frameRate)
            do {
                try V4L2EncoderStream(path: path, configuration: configuration).close()
                return nil
            } catch { return error }
        }
        let cases: [(String, EncoderError?, EncoderError.Code, String)] = [
            ("h264", refusal(encoder, "H264"), .unsupportedFormat, "FWHT"),
            ("small", refusal(encoder, "FWHT", width: 320, height: 240), .unsupportedFormat, "320x240"),
            ("camera", refusal(video, "FWHT"), .deviceNotFound, video),
            ("decoder", refusal(decoder, "FWHT"), .unsupportedFormat, decoder),
            ("missing", refusal("/dev/video63", "FWHT"), .deviceNotFound, "/dev/video63"),
        ]
        for (name, error, code, phrase) in cases {
            record.set(name, error.map { "\($0.code)" } ?? "accepted")
            record.expect(error?.code == code && error?.message.contains(phrase) == true,
                          "\(name): \(error.map { "\($0.code): \($0.message)" } ?? "accepted"), expected \(code) naming \(phrase)")
        }
    }

    /// Reloads vicodec with `parameters` (none: as the rig loaded it).
    func reloadVicodec(_ parameters: [String]) throws {
        let status = runProgram(["/bin/sh", "/usr/bin/rig-replug", "vicodec", ""] + parameters)
        guard status == 0 else { throw CaseError("rig-replug vicodec \(parameters.joined(separator: " ")) exited with status \(status)") }
    }
}
