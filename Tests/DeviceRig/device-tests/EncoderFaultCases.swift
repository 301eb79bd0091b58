#if canImport(Glibc)
import Glibc
#endif
internal import CRigDrivers
@_spi(DeviceRig) import MovieCapture
@_spi(DeviceRig) import MovieEncoding

/// The encoder stream's keyframes on request, a decoder's view of what it made, and the device
/// taken away while it streams: vicodec against vivid.
extension Cases {
    /// The lowest luma PSNR a decoded picture may have against the picture that went in, with
    /// vicodec's default quantiser (20): vivid's bars and text decode at about 36 dB.
    static let roundTripPSNRFloor = 30.0

    /// Opens vicodec's encoder for a 640x480 FWHT stream of GOP `gop` and starts vivid at
    /// 640x480 into the run `makeRun` makes for it.
    /// `cameraFormat` other than I420 (YUYV) has the stream adopt it and vivid's pictures lent as
    /// they are (`requestNativePictures()`), as a recording whose encoder takes that layout does,
    /// unless `adopts` is false (the pictures are then converted to I420 at capture).
    func encodeFromCamera(gop: Int32, imports: Bool = true, cameraFormat: V4L2PixelFormat = .yuv420, adopts: Bool = true,
                          _ record: CaseRecord,
                                  _ makeRun: (V4L2EncoderStream) -> EncoderRun) throws -> (V4L2EncoderStream, EncoderRun, V4L2Camera) {
        guard let node = Self.vicodecNode("stateful-encoder") else { throw CaseError("vicodec's stateful-encoder node is missing") }
        record.set("encoder", node)
        var configuration = V4L2EncoderStream.Configuration(codedFormat: V4L2PixelFormat("FWHT")!, pictureFormat: .i420,
                                                            width: 640, height: 480, frameRate: frameRate)
        configuration.controls = [.init(id: 0x0099_09CB, value: gop, name: "the GOP size", isRequired: true)]
        configuration.importsCameraBuffers = imports
        let stream = try V4L2EncoderStream(path: node, configuration: configuration)
        if cameraFormat != .yuv420 && adopts && !stream.adoptCameraLayout(cameraFormat) {
            stream.close()
            throw CaseError("\(node) does not take \(cameraFormat) pictures")
        }
        let run = makeRun(stream)
        let camera = try V4L2Camera(path: video, width: 640, height: 480, frameRate: frameRate, pixelFormat: cameraFormat)
        if cameraFormat != .yuv420 && adopts { camera.requestNativePictures() }
        do { try camera.start { run.handle($0) } } catch {
            stream.close()
            throw error
        }
        return (stream, run, camera)
    }

    /// vivid → vicodec's encoder → vicodec's stateful decoder: every picture comes back once, in
    /// order, and each within ``roundTripPSNRFloor`` of the one that went in.
    func memoryToMemoryRoundTrip(_ record: CaseRecord) async throws {
        let count = 30
        let (stream, run, camera) = try encodeFromCamera(gop: 10, record) { EncoderRun(stream: $0, phases: [count], keeping: count) }
        let finished = await run.waitUntilFinished(seconds: 60)
        camera.stop()
        stream.close()
        guard finished else { throw CaseError("the encoding did not finish within 60 s: \(run.progress)") }
        if let error = run.error { throw CaseError("encoding failed: \(error)") }
        guard let decoder = Self.vicodecNode("stateful-decoder") else { throw CaseError("vicodec's stateful-decoder node is missing") }
        let coded = run.phases[0]
        let pictures = run.pictures
        let (decoded, numbers) = try Self.decode(coded.map(\.bytes), on: decoder, pictureSize: 640 * 480 * 3 / 2)
        record.expect(numbers == (1...UInt(count)).map { $0 }, "decoded pictures numbered \(numbers), expected 1…\(count)")
        let scores = zip(pictures, decoded).map { Self.lumaPSNR($0, $1, pixels: 640 * 480) }
        record.set("decoded", decoded.count)
        record.set("psnr_min", String(format1: scores.min() ?? 0))
        record.set("psnr_mean", String(format1: scores.reduce(0, +) / Double(max(1, scores.count))))
        record.set("bytes", coded.map(\.bytes.count).reduce(0, +))
        record.expect(stream.importedPictureCount == count, "\(stream.importedPictureCount) of \(count) pictures imported from vivid's DMA-BUFs")
        record.expect(scores.count == count && scores.allSatisfy { $0 >= Self.roundTripPSNRFloor },
                      "luma PSNR per picture \(scores.map { String(format1: $0) }), expected \(count) at or above \(Self.roundTripPSNRFloor) dB")
    }

    /// Decodes `frames` through vicodec's decoder at `node`: the pictures and their numbers.
    static func decode(_ frames: [[UInt8]], on node: String, pictureSize: Int) throws -> ([[UInt8]], [UInt]) {
        let coded = frames.flatMap { $0 }
        let sizes = frames.map(\.count)
        var pictures = [UInt8](repeating: 0, count: pictureSize * frames.count)
        var numbers = [UInt](repeating: 0, count: frames.count)
        var error = [CChar](repeating: 0, count: 256)
        let decoded = CRig_decodeFWHT(node, 640, 480, coded, sizes, Int32(frames.count), &pictures, pictureSize, &numbers,
                                      &error, error.count)
        guard decoded >= 0 else { throw CaseError("\(node): decoding: \(String(nulTerminated: error))") }
        let count = Int(decoded)
        return ((0..<count).map { Array(pictures[$0 * pictureSize..<($0 + 1) * pictureSize]) }, Array(numbers[0..<count]))
    }

    /// The peak signal-to-noise ratio of the first `pixels` bytes (the luma plane) of `b` against `a`.
    static func lumaPSNR(_ a: [UInt8], _ b: [UInt8], pixels: Int) -> Double {
        var squares = 0
        for index in 0..<pixels {
            let difference = Int(a[index]) - Int(b[index])
            squares += difference * difference
        }
        guard squares > 0 else { return 99 }
        return 10 * log10(255 * 255 / (Double(squares) / Double(pixels)))
    }

    /// Keyframes asked for between the GOP's own: vicodec has no force-keyframe control, so the
    /// stream resets for each; the asked-for pictures come out intra and nothing is lost,
    /// doubled or reordered.
    func memoryToMemoryKeyframes(_ record: CaseRecord) async throws {
        let asked: Set<UInt64> = [7, 18, 19, 34]
        let (stream, run, camera) = try encodeFromCamera(gop: 10, record) { EncoderRun(stream: $0, phases: [40], keyframes: asked) }
        defer { stream.close() }
        record.set("can_force", stream.canForceKeyframes)
        let finished = await run.waitUntilFinished(seconds: 60)
        camera.stop()
        guard finished else { throw CaseError("the encoding did not finish within 60 s: \(run.progress)") }
        if let error = run.error { throw CaseError("encoding failed: \(error)") }
        let frames = run.phases[0]
        record.expect(frames.map(\.number) == Array(1...40), "numbers \(frames.map(\.number)), expected 1…40")
        let intra = Set(frames.filter { FWHTFrame($0.bytes)?.isIntra == true }.map(\.number))
        record.set("intra", intra.sorted().map(String.init).joined(separator: ","))
        record.expect(!stream.canForceKeyframes, "vicodec now has a force-keyframe control: the reset is not what was tested")
        record.expect(asked.isSubset(of: intra), "asked for keyframes at \(asked.sorted()), intra frames \(intra.sorted())")
        record.expect(intra.count < 20, "\(intra.count) of 40 frames intra with a GOP of 10")
    }

    /// vicodec's device unbound from its driver while the encoder streams: the next step is a
    /// `deviceLost` error naming the node, within the stream's timeout, and nothing hangs.
    func memoryToMemoryUnplug(_ record: CaseRecord) async throws {
        let (stream, run, camera) = try encodeFromCamera(gop: 10, record) { EncoderRun(stream: $0, phases: [100_000]) }
        var restored = false
        defer {
            camera.stop()
            stream.close()
            if !restored { try? reloadVicodec([]) }
        }
        guard await run.waitUntilSubmitted(10, seconds: 30) else { throw CaseError("10 pictures did not go in within 30 s: \(run.progress)") }
        try Self.unbindVicodec()
        let unbound = MonotonicClock.now()
        let finished = await run.waitUntilFinished(seconds: 30)
        record.set("seconds_to_error", String(format1: Double(MonotonicClock.now() - unbound) / 1e9))
        record.set("error", run.failure.map { "\($0.code)" } ?? "none")
        record.expect(finished, "the encoder did not fail within 30 s of the unbind: \(run.progress)")
        let failure = run.failure
        record.expect(failure?.code == .deviceLost && failure?.message.contains(stream.path) == true,
                      "\(run.error ?? "no error"), expected deviceLost naming \(stream.path)")
        camera.stop()
        stream.close()
        try reloadVicodec([])
        restored = true
        record.expect(Self.vicodecNode("stateful-encoder") != nil, "vicodec's encoder did not come back after reloading the module")
    }

    /// Unbinds vicodec's platform device from its driver: its nodes go away as a removed device's do.
    static func unbindVicodec() throws {
        let driver = "/sys/bus/platform/drivers/vicodec"
        guard let directory = opendir(driver) else { throw CaseError("\(driver) is missing") }
        var device: String?
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("vicodec") { device = name }
        }
        closedir(directory)
        guard let device, let file = fopen("\(driver)/unbind", "w") else { throw CaseError("no vicodec device is bound to \(driver)") }
        let written = fputs(device, file) >= 0
        guard fclose(file) == 0, written else { throw CaseError("unbinding \(device) failed: \(String(cString: strerror(errno)))") }
    }
}

extension Cases {
    /// A size change mid-stream, by drain and reconfigure: 20 of vivid's 640x480 pictures, then
    /// the stream resized to 1280x720 and 10 pictures of that size. Every picture comes out
    /// once, in order, each coded at its own size, and the first at the new size is intra.
    func memoryToMemoryResize(_ record: CaseRecord) async throws {
        let (stream, run, camera) = try encodeFromCamera(gop: 10, record) { EncoderRun(stream: $0, phases: [20]) }
        defer { stream.close() }
        let finished = await run.waitUntilFinished(seconds: 60)
        camera.stop()
        guard finished else { throw CaseError("the encoding did not finish within 60 s: \(run.progress)") }
        if let error = run.error { throw CaseError("encoding failed: \(error)") }
        var frames = run.phases[0]
        frames += try stream.resize(width: 1280, height: 720)
        record.set("resized", "\(stream.codedWidth)x\(stream.codedHeight)")
        for number in UInt64(21)...30 {
            let bytes = (0..<1280 * 720 * 3 / 2).map { UInt8(truncatingIfNeeded: $0 / 1280 + Int(number) * 8) }
            let picture = try VideoFrame(copying: bytes, width: 1280, height: 720, pixelFormat: .i420, timestamp: number, sequenceNumber: number)
            try stream.submit(picture, number: number)
            while let coded = try stream.takeCoded() { frames.append(coded) }
        }
        frames += try stream.drain()
        let headers = frames.map { FWHTFrame($0.bytes) }
        let sizes = headers.map { $0.map { "\($0.width)x\($0.height)" } ?? "?" }
        record.set("sizes", "\(sizes.filter { $0 == "640x480" }.count)x640x480,\(sizes.filter { $0 == "1280x720" }.count)x1280x720")
        record.expect(frames.map(\.number) == Array(1...30), "numbers \(frames.map(\.number)), expected 1…30")
        record.expect(sizes == Array(repeating: "640x480", count: 20) + Array(repeating: "1280x720", count: 10), "coded sizes \(sizes)")
        record.expect(headers.count == 30 && headers[20]?.isIntra == true, "the first picture at the new size is not intra")
    }
}
