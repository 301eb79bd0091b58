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

    static let inputs = ["repair-tfdt-backwards.mov", "repair-zero-timescale.mov", "repair-trun-count-oom.mov"]

    final class MemoryFile: MovieByteSource, MovieByteSink {
        var bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var size: UInt64 { UInt64(bytes.count) }
        func read(at offset: UInt64, count: Int) throws -> [UInt8] {
            guard offset < size else { return [] }
            return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }
        func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws {
            let end = Int(offset) + source.count
            if bytes.count < end { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
            for (i, byte) in source.enumerated() { bytes[Int(offset) + i] = byte }
        }
        func synchronize() throws {}
        func truncate(to size: UInt64) throws { if UInt64(bytes.count) > size { bytes.removeLast(bytes.count - Int(size)) } }
    }

    @Test(arguments: inputs)
    func regressionInputIsRepairedOrRefusedWithATypedError(_ name: String) throws {
        let source = try #require(InMemoryMovieSource.contents(of: Self.directory + "/" + name))
        if let report = try? MovieInspection(source: InMemoryMovieSource(source), path: name) {
            _ = report.text
            _ = report.json
        }
        let file = MemoryFile(source)
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
