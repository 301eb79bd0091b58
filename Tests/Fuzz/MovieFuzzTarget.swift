// A libFuzzer target over the paths that read untrusted movies: the atom tree (strict and
// tolerant), the movie summary and sample tables, the `movrec inspect` report (text and JSON),
// repair, and the H.264 Annex-B parser. Built by Scripts/fuzz with
// `swiftc -sanitize=fuzzer -parse-as-library` together with the MovieContainer sources.

/// A movie in memory that can be read and written, like a file opened for update.
final class MemoryFile: MovieByteSource, MovieByteSink {
    var bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var size: UInt64 { UInt64(bytes.count) }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < size else { return [] }
        return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
    }

    func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws {
        struct TooLarge: Error {}
        guard offset + UInt64(source.count) <= 1 << 26 else { throw TooLarge() }
        let end = Int(offset) + source.count
        if bytes.count < end { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
        for (i, byte) in source.enumerated() { bytes[Int(offset) + i] = byte }
    }

    func synchronize() throws {}

    func truncate(to size: UInt64) throws {
        if UInt64(bytes.count) > size { bytes.removeLast(bytes.count - Int(size)) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMovie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let file = MemoryFile(bytes)
    if let report = try? MovieInspection(source: file, path: "fuzz") {
        _ = report.text
        _ = report.json
        for track in report.info?.tracks ?? [] {
            _ = try? track.sampleTable?.samples(limit: 200_000)
            _ = track.videoEntry
            _ = track.pcmFormat
            _ = track.orientation
        }
    }
    _ = try? AtomTree(source: file, stoppingAtDamage: true)
    _ = try? MovieRepair.repair(MemoryFile(bytes))
    _ = try? AnnexBStream(annexB: bytes)
    return 0
}
