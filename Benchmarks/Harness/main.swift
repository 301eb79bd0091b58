#if canImport(Glibc)
import Glibc
#endif

// movrec-bench: the library side by side with ffmpeg, GStreamer and the bare x264 CLI in one
// run (see Benchmarks/README.md). Run through Benchmarks/run, from the package root.

let usage = """
    usage: movrec-bench [--quick] [--runs N] [--only a,a2,b,c,d,e,f,g,h,i,j,j2,k,l,m,n,o,p,q] [--cells NAME,NAME] [--output FILE.json] [--bin DIR] [--work DIR]
      --quick   fewer cells and runs, for iterating (not for the reference results)
      --runs N  measured runs per figure, each after one warm-up (default 11)
      --cells   only these cells of case a, named as the table names them ("1080p veryfast grain")
    """

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}
@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}
let quick = flag("--quick")
let runsText = option("--runs")
let only = Set((option("--only") ?? "a,a2,b,c,d,e,f,g,h,i,j,j2,k,l,m,n,o,p,q").split(separator: ",").map(String.init))
let cellsText = option("--cells")
let binary = option("--bin") ?? ".build/release"
let work = option("--work") ?? "Benchmarks/work"
let outputPath = option("--output") ?? (quick ? "\(work)/results-quick.json" : "Benchmarks/results.json")
guard arguments.isEmpty, runsText.map({ Int($0) != nil }) ?? true else {
    print(usage)
    exit(2)
}

let encodeCellNames = cellsText.map { Set($0.split(separator: ",").map { $0.split(separator: " ").joined(separator: " ") }) }
if let encodeCellNames {
    let known = Harness.encodeCells(quick: quick).map(\.name)
    let unknown = encodeCellNames.subtracting(known).sorted()
    guard unknown.isEmpty else {
        print("movrec-bench: --cells: no case-a cell is named \(unknown.joined(separator: ", "))\(quick ? " in quick mode" : ""); "
              + "the cells are: \(known.joined(separator: ", "))")
        exit(2)
    }
}

mkdir(work, 0o755)
mkdir(work + "/scratch", 0o755)
var harness = Harness(runs: runsText.flatMap(Int.init) ?? (quick ? 5 : 11), quick: quick, work: work, scratch: work + "/scratch",
                      worker: binary + "/bench-worker", movrec: binary + "/movrec", spawner: binary + "/bench-spawn")
harness.encodeCellNames = encodeCellNames
for tool in [harness.worker, harness.movrec, harness.spawner] where !exists(tool) {
    print("movrec-bench: \(tool) is missing; build with: swift build -c release --product movrec --product bench-worker --product bench-spawn")
    exit(2)
}
let started = now()
print("movrec-bench: \(harness.runs) measured runs per figure (after a warm-up), contenders alternated\(quick ? ", quick mode" : "")")
let machine = machineDescription(scratch: harness.scratch)
print(machine.render())
// What a child that does nothing reports as its peak RSS: every RSS figure below includes it.
let rssFloor = (try? run(["true"], scratch: harness.scratch, spawner: harness.spawner))?.peakRSS ?? .nan
print("peak RSS of a run of `true` (included in every RSS figure): \(mib(rssFloor))")
let sections: [(String, (inout Harness) throws -> Void)] = [
    ("a", { try $0.encodeBenchmark() }), ("a2", { try $0.cameraFormatBenchmark() }), ("b", { try $0.muxBenchmark() }), ("c", { try $0.stopAndMemoryBenchmark() }),
    ("d", { try $0.rotationBenchmark() }), ("e", { try $0.liveBenchmark(); try $0.fileSizeLine() }), ("f", { try $0.startupBenchmark() }),
    ("g", { try $0.durabilityBenchmark() }), ("h", { try $0.segmentBenchmark() }), ("i", { try $0.clockCorrectionBenchmark() }),
    ("j", { try $0.photoBenchmark() }), ("j2", { try $0.rigShutterLagBenchmark() }), ("k", { try $0.liveViewBenchmark() }),
    ("l", { try $0.hevcBenchmark() }), ("m", { try $0.eventPreRollBenchmark() }), ("n", { try $0.rtspBenchmark() }),
    ("o", { try $0.uploadBenchmark() }), ("p", { try $0.pressureBenchmark() }), ("q", { try $0.rigEncoderBenchmark() }),
]
// How much CPU time the host took from this machine during each section: runs of a section
// with a high share of steal say more about the neighbours than about the contenders.
var stolen: [(String, JSON)] = []
for (name, body) in sections where only.contains(name) {
    let before = machineCPUTicks()
    do {
        try body(&harness)
    } catch {
        harness.check(name, "section \(name) ran", false, "\(error)")
    }
    let after = machineCPUTicks()
    let share = after.total > before.total ? (after.steal - before.steal) / (after.total - before.total) : 0
    print("  (CPU time stolen by the host during \(name): \(fixed(share * 100, 1))%)")
    stolen.append((name, .number(share)))
}
let failed = harness.verdicts.filter { !$0.passed }
print("\n\(harness.verdicts.count - failed.count) of \(harness.verdicts.count) targets PASS"
      + (failed.isEmpty ? "" : "; FAIL: " + failed.map { "\($0.section) \($0.target)" }.joined(separator: "; "))
      + " (\(fixed(now() - started, 0)) s)")
let document = JSON.object([
    ("machine", machine), ("runs", .number(Double(harness.runs))), ("quick", .bool(quick)),
    ("rssFloorMiB", .number(rssFloor / 1_048_576)),
    ("command", .string("Benchmarks/run" + (quick ? " --quick" : ""))),
    ("targets", .array(harness.verdicts.map(\.json))),
    ("stealShareBySection", .object(stolen)),
] + harness.sections)
let text = document.render() + "\n"
guard let file = fopen(outputPath, "w") else {
    print("movrec-bench: cannot write \(outputPath)")
    exit(1)
}
fputs(text, file)
fclose(file)
print("results written to \(outputPath)")
exit(failed.isEmpty ? 0 : 1)
