import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import MovieContainer

/// Every input the fuzzer ever crashed on (Fixtures/fuzz/regressions) goes through the same
/// paths as the fuzz target — inspect, the tolerant tree, repair — without trapping.
@Suite struct FuzzRegressionTests {
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fixtures/fuzz/regressions"
    }()

    static let inputs = ["repair-tfdt-backwards.mov", "repair-zero-timescale.mov", "repair-trun-count-oom.mov",
                         "sps-exp-golomb-overflow.264"]

    @Test(arguments: inputs)
    func regressionInputIsRepairedOrRefusedWithATypedError(_ name: String) throws {
        let source = try #require(InMemoryMovieSource.contents(of: Self.directory + "/" + name))
        if let report = try? MovieInspection(source: InMemoryMovieSource(source), path: name) {
            _ = report.text
            _ = report.json
        }
        _ = try? AnnexBStream(annexB: source)
        let file = InMemoryMovieFile(source)
        do {
            _ = try MovieRepair.repair(file)
            // Repaired: the result must be a movie whose tables agree.
            let info = try MovieInfo(source: InMemoryMovieSource(file.bytes))
            for track in info.tracks { _ = try track.sampleTable?.samples() }
        } catch {
            #expect(error is MovieRepair.RepairError || error is MovieFormatError, "\(name): \(error)")
        }
    }
}

extension InMemoryMovieSource {
    /// Reads a small file without Foundation (for tests of the pure module).
    static func contents(of path: String) -> [UInt8]? {
        var result: [UInt8] = []
        guard let stream = fopen(path, "rb") else { return nil }
        defer { fclose(stream) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, stream)
            if n <= 0 { break }
            result.append(contentsOf: buffer.prefix(n))
        }
        return result
    }
}
