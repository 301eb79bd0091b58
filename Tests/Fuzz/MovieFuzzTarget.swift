// A libFuzzer target over the paths that read untrusted movies: the atom tree (strict and
// tolerant), the movie summary and sample tables, timed metadata (`mebx` keys and samples), the
// `movrec inspect` report (text and JSON),
// repair, and the H.264 Annex-B parser. Built by Scripts/fuzz with
// `swiftc -sanitize=fuzzer -parse-as-library` together with the MovieContainer sources.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMovie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let file = InMemoryMovieFile(bytes)
    if let report = try? MovieInspection(source: file, path: "fuzz") {
        _ = report.text
        _ = report.json
        for track in report.info?.tracks ?? [] {
            _ = try? track.sampleTable?.samples(limit: 200_000)
            _ = track.videoEntry
            _ = track.pcmFormat
            _ = track.orientation
            _ = track.metadataKeys
            if let info = report.info, track.metadataEntry != nil {
                _ = try? info.timedMetadataSamples(of: track, in: file)
            }
        }
    }
    _ = try? AtomTree(source: file, stoppingAtDamage: true)
    _ = try? MovieRepair.repair(InMemoryMovieFile(bytes))
    _ = try? AnnexBStream(annexB: bytes)
    return 0
}
