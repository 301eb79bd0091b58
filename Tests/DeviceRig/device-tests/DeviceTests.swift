// device-tests: the library against real capture drivers, inside the device-rig VM.
//
// Run by `Tests/DeviceRig/run-device-tests -o OUTDIR device-tests [CASE...]`; with no case
// named, every case but the benchmark photo-lag-peers, which needs the rig's -p. Every case goes
// through the library's public API: V4L2Camera on vivid's /dev/video0, ALSAMicrophone on
// snd-aloop's hw:Loopback,1,0 while a tone plays into hw:Loopback,0,0, CaptureSession and
// MovieFileOutput. The test itself only plays the tone, sets vivid's fault-injection controls,
// replugs the driver (`rig-replug`, which the rig installs in the guest), and watches the
// camera's events on their way into the session for what a RecordingResult does not say: the
// driver's sequence numbers and timestamps.
//
// Output: one `CASE name status=pass|fail key=value ...` line per case, then `PASS name` or
// `FAIL name: reasons`; the CASE lines again in OUTDIR/summary.txt; the movies in OUTDIR.
// Capture is real time on an emulated CPU: a case that fails while that CPU was starved runs
// once more, after a `RETRY name: ...` line, and its CASE line says `attempts=2`.
// The exit status is 0 when every case passed and 1 otherwise.
#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

@main
struct DeviceTests {
    static let videoDevice = "/dev/video0"
    static let captureDevice = "hw:Loopback,1,0"
    static let playbackDevice = "hw:Loopback,0,0"
    static let toneFrequency = 1000.0

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let directory = access("/out", F_OK) == 0 ? "/out" : "."
        let report = Report(directory: directory)
        let chosen = Set(arguments)
        let unknown = chosen.subtracting(Cases.all.map(\.name))
        guard unknown.isEmpty else {
            report.say("unknown cases: \(unknown.sorted().joined(separator: " ")); the cases are: \(Cases.all.map(\.name).joined(separator: " "))")
            exit(2)
        }
        let player: TonePlayer
        do {
            player = try TonePlayer(device: playbackDevice, frequency: toneFrequency)
        } catch {
            report.say("FAIL tone: \(error)")
            exit(1)
        }
        let context = Cases(report: report)
        let started = ContinuousClock.now
        for test in Cases.all where chosen.isEmpty ? test.runsByDefault : chosen.contains(test.name) {
            var record = await attempt(test, context)
            // Capture is real time on an emulated CPU that other work on the host can starve: a
            // case that failed while it was starved gets one more attempt, and says so.
            if !record.passed, test.retriesWhenStarved, let starvation = record.starvation {
                report.say("RETRY \(test.name): \(record.failures.joined(separator: "; ")) (\(starvation))")
                let first = record
                record = await attempt(test, context)
                record.set("attempts", 2)
                record.set("first_attempt", ["frames", "dropped", "cpu_busy"].compactMap { key in
                    first.values.first { $0.key == key }.map { "\(key):\($0.value)" }
                }.joined(separator: ","))
            }
            report.add(record)
        }
        player.stop()
        let tone = player.statistics
        report.say("tone player: \(tone.frames) frames, \(tone.underruns) underruns\(tone.error.map { ", stopped: \($0)" } ?? ""); cases took \(seconds(ContinuousClock.now - started)) s")
        exit(report.finish() == 0 ? 0 : 1)
    }

    /// Runs a case once; an error it throws is one of its failures.
    static func attempt(_ test: DeviceTestCase, _ context: Cases) async -> CaseRecord {
        let record = CaseRecord(name: test.name)
        let started = ContinuousClock.now
        do {
            try await test.run(context, record)
        } catch {
            record.fail("\(error)")
        }
        record.set("case_wall", seconds(ContinuousClock.now - started))
        return record
    }
}
