import MoviePlatform

/// The conversion stage alone, for the benchmarks: the same pictures converted by this stage and
/// by libv4lconvert, in memory, one picture after another.
@_spi(Benchmarks) public enum ConversionBenchmark {
    /// Milliseconds per picture converting every picture of a replay file `rounds` times with
    /// the stage (`usingFallback` false) or libv4lconvert (true); the median of the rounds.
    /// `warm` converts the first picture again and again instead (as many times as the file has
    /// pictures), so it stays in the processor's caches; otherwise each comes from memory, as a
    /// camera's buffers do after the DMA.
    /// - Throws: ``SourceError`` when the file cannot be read, ``DeviceError`` when a library is
    ///   missing; a `SourceError` with `unsupportedFormat` naming the reason when the converter
    ///   refuses the pictures.
    public static func millisecondsPerPicture(path: String, cameraFormat: V4L2PixelFormat, width: Int, height: Int,
                                              usingFallback: Bool, warm: Bool = false, rounds: Int) throws -> Double {
        var pictures = try readPictures(path: path, format: cameraFormat, width: width, height: height)
        if warm { pictures = [pictures[0]] + Array(repeating: [], count: pictures.count - 1) }
        let destinationBytes = UnsafeMutableRawPointer.allocate(byteCount: PixelFormat.i420.byteCount(width: width, height: height),
                                                                alignment: 64)
        defer { destinationBytes.deallocate() }
        let destination = I420Destination(packed: destinationBytes, width: width, height: height)
        let convert: (UnsafeRawBufferPointer) -> ConversionOutcome
        if usingFallback {
            let fallback = try V4LConvertFallback(pixelFormat: cameraFormat, width: width, height: height,
                                                  bytesPerLine: CameraPictureConverter.packedBytesPerLine(cameraFormat, width: width),
                                                  descriptor: -1, device: path)
            convert = { fallback.convert($0, into: destination) }
        } else {
            let converter = try CameraPictureConverter(pixelFormat: cameraFormat, width: width, height: height, device: path)
            convert = { converter.convert($0, into: destination) }
        }
        var perRound: [Double] = []
        for _ in 0..<max(1, rounds) {
            let start = MonotonicClock.now()
            for picture in pictures {
                let outcome = (picture.isEmpty ? pictures[0] : picture).withUnsafeBytes { convert($0) }
                if case .corrupt(let reason) = outcome {
                    throw SourceError(.unsupportedFormat, source: path, step: "converting", usingFallback ? "libv4lconvert: \(reason)" : reason)
                }
            }
            perRound.append(Double(MonotonicClock.now() - start) / 1e6 / Double(pictures.count))
        }
        return perRound.sorted()[perRound.count / 2]
    }

    private static func readPictures(path: String, format: V4L2PixelFormat, width: Int, height: Int) throws -> [[UInt8]] {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        var pictures: [[UInt8]] = []
        if let size = CameraPictureConverter.pictureSize(format, width: width, height: height) {
            var offset: UInt64 = 0
            while offset + UInt64(size) <= file.size {
                pictures.append(try file.read(at: offset, count: size))
                offset += UInt64(size)
            }
        } else {
            var scanner = MJPEGFrameScanner(file: file)
            var offset: UInt64 = 0
            while let next = try scanner.nextPicture(from: offset) {
                pictures.append(try file.read(at: next.offset, count: next.count))
                offset = next.offset + UInt64(next.count)
            }
        }
        guard !pictures.isEmpty else {
            throw SourceError(.malformedFile, source: path, step: "reading", "no whole \(width)x\(height) \(format) picture")
        }
        return pictures
    }
}
