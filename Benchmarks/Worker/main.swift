#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer

// One benchmark case per process, so the harness sees this run's CPU time and peak RSS alone
// (wait4's rusage). Results go to standard output as `result NAME VALUE` lines.

/// Prints one measured value for the harness.
func report(_ name: String, _ value: Double) {
    print("result \(name) \(value)")
}

func fail(_ message: String) -> Never {
    let line = "bench-worker: \(message)\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("usage: bench-worker encode|replay|convert|correct|rotation|live|pattern|tone|size|segments|paced|stop-memory|preroll|photo-burst|photo-lag|photo-recording|photo-idle ...") }
do {
    switch command {
    case "encode": try await encode(Array(arguments.dropFirst()))
    case "rotation": try await rotation(Array(arguments.dropFirst()))
    case "live": try await live(Array(arguments.dropFirst()))
    case "live-view": try await liveView(Array(arguments.dropFirst()))
    case "pattern": try await pattern(Array(arguments.dropFirst()))
    case "tone": try await tone(Array(arguments.dropFirst()))
    case "size": try await fileSize(Array(arguments.dropFirst()))
    case "segments": try await segments(Array(arguments.dropFirst()))
    case "paced": try paced(Array(arguments.dropFirst()))
    case "stop-memory": try stopAndMemory(Array(arguments.dropFirst()))
    case "preroll": try preRoll(Array(arguments.dropFirst()))
    case "replay": try await replay(Array(arguments.dropFirst()))
    case "convert": try convert(Array(arguments.dropFirst()))
    case "correct": try correct(Array(arguments.dropFirst()))
    case "photo-burst": try await photoBurst(Array(arguments.dropFirst()))
    case "photo-lag": try await photoLag(Array(arguments.dropFirst()))
    case "photo-recording": try await photoRecording(Array(arguments.dropFirst()))
    case "photo-idle": try await photoIdle(Array(arguments.dropFirst()))
    default: fail("unknown case '\(command)'")
    }
} catch {
    fail("\(command): \(error)")
}
