import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieRecorder

/// Simulated power cuts: real recordings (`movrec record`, libx264, the real writer) run under
/// an interposer (Tests/PowerCut/journal.c) that journals every write, sync and truncate of the
/// movie; from each journal the test builds the file states a power cut can leave, and repairs
/// each one. A state must either repair into a movie ffmpeg decodes without an error, or be
/// refused with a typed error; never a crash, a hang or a movie that does not play.
@Suite(.serialized) struct PowerCutTests {
    enum Operation {
        case write(offset: Int, bytes: [UInt8])
        case sync
        case truncate(Int)
    }

    /// A recording's journal.
    struct Journal {
        var name: String
        var operations: [Operation]
        /// Whether fragments are synced as they are written (`--sync`).
        var synced: Bool

        /// The number of operations after which the first fragment has landed whole: its
        /// `moof` is written after its media.
        var firstFragmentEnd: Int? {
            operations.firstIndex { operation in
                guard case .write(_, let bytes) = operation, bytes.count >= 8 else { return false }
                return bytes[4..<8].elementsEqual("moof".utf8)
            }.map { $0 + 1 }
        }
    }

    static let root = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent().path

    /// Builds the interposer once per run.
    static func interposer() throws -> String {
        let library = root + "/.build/power-cut/libjournal.so"
        try FileManager.default.createDirectory(atPath: root + "/.build/power-cut", withIntermediateDirectories: true)
        let build = try run("/usr/bin/gcc", ["-shared", "-fPIC", "-O2", "-o", library, root + "/Tests/PowerCut/journal.c", "-ldl"])
        #expect(build.status == 0, "building the interposer: \(build.error)")
        return library
    }

    /// Records `arguments` with `movrec record` under the interposer and reads its journal.
    static func journal(_ name: String, _ arguments: [String], in dir: TemporaryDirectory, library: String) throws -> Journal {
        let movie = dir.file("\(name).mov"), journal = dir.file("\(name).journal")
        let result = try run("/usr/bin/env", ["JOURNAL_TARGET=\(movie)", "JOURNAL_PATH=\(journal)", "LD_PRELOAD=\(library)",
                                              try movrecPath(), "record", movie, "--quiet"] + arguments)
        #expect(result.status == 0, "\(name): \(result.error)")
        return Journal(name: name, operations: try parse(journal), synced: arguments.contains("--sync"))
    }

    static func parse(_ path: String) throws -> [Operation] {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var operations: [Operation] = [], i = 0
        func number(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
        while i + 17 <= data.count {
            let op = data[i], offset = number(i + 1), length = number(i + 9)
            i += 17
            switch op {
            case UInt8(ascii: "w"):
                operations.append(.write(offset: offset, bytes: Array(data[i..<i + length])))
                i += length
            case UInt8(ascii: "s"): operations.append(.sync)
            case UInt8(ascii: "t"): operations.append(.truncate(offset))
            default: Issue.record("unknown journal record \(op)")
            }
        }
        return operations
    }

    /// A small deterministic generator, so a failing state can be made again from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The file after `operations[..<end]` all landed.
    static func apply(_ operations: ArraySlice<Operation>, to file: inout [UInt8]) {
        for operation in operations {
            switch operation {
            case .write(let offset, let bytes):
                if file.count < offset + bytes.count { file += [UInt8](repeating: 0, count: offset + bytes.count - file.count) }
                file.replaceSubrange(offset..<offset + bytes.count, with: bytes)
            case .truncate(let size):
                if file.count > size { file.removeLast(file.count - size) } else { file += [UInt8](repeating: 0, count: size - file.count) }
            case .sync: break
            }
        }
    }

    /// A state a power cut at `cut` may leave: what was synced landed; of the writes after the
    /// last sync, any may be lost, and the last one torn; the size may have grown over zeros.
    static func damagedState(_ journal: Journal, cut: Int, random: inout SplitMix) -> [UInt8] {
        let lastSync = journal.operations[..<cut].lastIndex { if case .sync = $0 { true } else { false } } ?? -1
        var file: [UInt8] = []
        apply(journal.operations[...lastSync], to: &file)
        var grownTo = file.count
        for index in (lastSync + 1)..<cut {
            guard case .write(let offset, var bytes) = journal.operations[index] else {
                apply(journal.operations[index...index], to: &file)
                continue
            }
            grownTo = max(grownTo, offset + bytes.count)
            switch random.next() % 8 {
            case 0, 1: continue  // lost
            case 2 where index == cut - 1:  // torn
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            case 3:  // landed with some 4 KiB pages still zero
                for _ in 0..<(1 + random.next() % 3) {
                    let page = Int(random.next() % UInt64(max(1, bytes.count / 4096 + 1))) * 4096
                    if page < bytes.count { bytes.replaceSubrange(page..<min(bytes.count, page + 4096), with: repeatElement(0, count: min(4096, bytes.count - page))) }
                }
            default: break
            }
            apply([.write(offset: offset, bytes: bytes)], to: &file)
        }
        if random.next() % 2 == 0, file.count < grownTo { file += [UInt8](repeating: 0, count: grownTo - file.count) }
        return file
    }
}

extension PowerCutTests {
    /// What came of the states tried.
    struct Tally: CustomStringConvertible {
        var tried = 0, repaired = 0, refused = 0, decoded = 0
        var worstLoss = 0.0
        var failures: [String] = []
        var description: String {
            "\(tried) states: \(repaired) repaired (\(decoded) distinct movies decoded by ffmpeg), \(refused) refused; worst loss \(String(format: "%.3f", worstLoss)) s"
        }
    }

    /// Repairs `state` into a movie, or nil when repair refuses it with a typed error.
    static func repair(_ state: [UInt8], in dir: TemporaryDirectory) throws -> (bytes: [UInt8], seconds: Double)? {
        let input = dir.file("state.mov"), output = dir.file("repaired.mov")
        try Data(state).write(to: URL(fileURLWithPath: input))
        do {
            let report = try MovieFileRepair.repair(path: input, outputPath: output, overwrite: true)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
            return (bytes, Double(report.duration) / Double(max(1, report.movieTimescale)))
        } catch is FileError, is MovieFormatError, is MovieRepair.RepairError, is MovieWriterError {
            return nil
        }
    }

    /// ffmpeg's complaints decoding `movie`; empty when it decodes cleanly.
    static func decodeErrors(_ movie: [UInt8], in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("decode.mov")
        try Data(movie).write(to: URL(fileURLWithPath: path))
        let result = try run(try toolPath("ffmpeg"), ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
        // The null muxer's complaint about the timestamps of the last B-frames of a movie cut
        // inside a group of pictures is not a decode error; every other line is.
        let errors = result.error.split(separator: "\n")
        return result.status == 0 ? errors.joined(separator: "\n") : "exit \(result.status): \(result.error)"
    }

    /// Tries every prefix of `journal` and `damaged` sampled damaged states.
    static func tryStates(_ journal: Journal, damaged: Int, seed: UInt64, in dir: TemporaryDirectory, tally: inout Tally) throws {
        var random = SplitMix(state: seed)
        var decoded: [Int: String] = [:]  // hash of a repaired movie → ffmpeg's errors
        var cleanSeconds: [Int: Double] = [:]  // cut → what a clean state there keeps
        func clean(_ cut: Int) throws -> Double {
            if let seconds = cleanSeconds[cut] { return seconds }
            var file: [UInt8] = []
            apply(journal.operations[..<cut], to: &file)
            let seconds = try repair(file, in: dir)?.seconds ?? 0
            cleanSeconds[cut] = seconds
            return seconds
        }
        let count = journal.operations.count
        let cuts = Array(0...count) + (0..<damaged).map { _ in Int(random.next() % UInt64(count + 1)) }
        for (n, cut) in cuts.enumerated() {
            let isPrefix = n <= count
            var state: [UInt8] = []
            if isPrefix { apply(journal.operations[..<cut], to: &state) } else { state = damagedState(journal, cut: cut, random: &random) }
            tally.tried += 1
            guard let repaired = try repair(state, in: dir) else {
                tally.refused += 1
                // Once a fragment has landed whole, a clean cut (the finish under way included:
                // the movie atom half written, the headers half patched) must leave a file that
                // repairs or, already finished, plays as it is.
                if isPrefix, let firstFragment = journal.firstFragmentEnd, cut >= firstFragment {
                    let errors = try decodeErrors(state, in: dir)
                    if !errors.isEmpty {
                        tally.failures.append("\(journal.name) clean cut at \(cut) of \(count): refused, and it does not play: \(errors.prefix(300))")
                    }
                }
                continue
            }
            tally.repaired += 1
            var hasher = Hasher()
            hasher.combine(repaired.bytes)
            let key = hasher.finalize()
            if decoded[key] == nil {
                decoded[key] = try decodeErrors(repaired.bytes, in: dir)
                tally.decoded += 1
            }
            let label = "\(journal.name) seed \(seed) state \(n) (cut at \(cut) of \(count)\(isPrefix ? ", clean" : ""))"
            if let errors = decoded[key], !errors.isEmpty {
                // Kept for a closer look: the state and what repair made of it.
                let kept = root + "/.build/power-cut/\(journal.name)-\(n)"
                try? Data(state).write(to: URL(fileURLWithPath: kept + "-state.mov"))
                try? Data(repaired.bytes).write(to: URL(fileURLWithPath: kept + "-repaired.mov"))
                tally.failures.append("\(label): ffmpeg: \(errors.prefix(300)) (kept as \(kept)-*.mov)")
            }
            let lastSync = journal.operations[..<cut].lastIndex { if case .sync = $0 { true } else { false } }
            if journal.synced, let lastSync, try repaired.seconds + 1e-6 < clean(lastSync + 1) {
                tally.failures.append("\(label): kept \(repaired.seconds) s, less than the \(try clean(lastSync + 1)) s synced before the cut")
            }
            tally.worstLoss = max(tally.worstLoss, try clean(cut) - repaired.seconds)
        }
    }

    @Test func everyPowerCutStateRepairsOrIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let library = try Self.interposer()
        let total = Int(ProcessInfo.processInfo.environment["POWER_CUT_STATES"] ?? "") ?? 10_000
        let seed = UInt64(ProcessInfo.processInfo.environment["POWER_CUT_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
        print("power cuts: seed \(seed) (POWER_CUT_SEED=\(seed) replays), \(total) states")
        let base = ["--video", "testsrc", "--size", "320x240", "--fps", "30", "--duration", "2", "--fragment-interval", "0.25", "--overwrite"]
        let journals = [
            try Self.journal("audio-bframes", base + ["--audio", "tone"], in: dir, library: library),
            try Self.journal("video-only", base + ["--audio", "none", "--bframes", "0"], in: dir, library: library),
            try Self.journal("synced", base + ["--audio", "tone", "--sync"], in: dir, library: library),
            try Self.journal("hevc", base + ["--audio", "tone", "--codec", "hevc", "--preset", "ultrafast"], in: dir, library: library),
        ]
        var tally = Tally()
        for (index, journal) in journals.enumerated() {
            let prefixes = journal.operations.count + 1
            let damaged = max(0, (total + journals.count - 1) / journals.count - prefixes)
            var own = Tally()
            try Self.tryStates(journal, damaged: damaged, seed: seed &+ UInt64(index), in: dir, tally: &own)
            print("power cuts: \(journal.name) (\(journal.operations.count) operations): \(own)")
            tally.tried += own.tried
            tally.repaired += own.repaired
            tally.refused += own.refused
            tally.decoded += own.decoded
            tally.worstLoss = max(tally.worstLoss, own.worstLoss)
            tally.failures += own.failures
        }
        print("power cuts: \(tally)")
        #expect(tally.tried >= total, "\(tally)")
        #expect(tally.failures.isEmpty, "\(tally.failures.count) states failed, the first: \(tally.failures.prefix(5).joined(separator: "\n"))")
    }
}

