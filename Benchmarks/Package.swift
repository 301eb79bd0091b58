// swift-tools-version: 6.0
import PackageDescription

// The benchmark harness, beside the library it measures (as swift-nio keeps its benchmarks):
// `Benchmarks/run` builds this package in release mode and runs `movrec-bench`.
let package = Package(
    name: "MovieRecorderBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "MovieRecorder", path: "..")],
    targets: [
        // Runs every contender as a child process, alternating them, and reports ratios, CPU
        // seconds and peak RSS.
        .executableTarget(name: "movrec-bench", path: "Harness", swiftSettings: [.swiftLanguageMode(.v6)]),
        // Starts each run the harness measures and reports its wall time, CPU time and peak RSS:
        // a small C program, so the peak RSS its children inherit from it is about a megabyte.
        .executableTarget(name: "bench-spawn", path: "Spawn"),
        // Case a2's half of the MJPEG limit: TurboJPEG decoding the same JPEGs alone.
        .executableTarget(name: "bench-tjdecode", path: "TJDecode", linkerSettings: [.linkedLibrary("turbojpeg")]),
        // What the harness measures of the library through its public API, one case per run.
        .executableTarget(
            name: "bench-worker",
            dependencies: [.product(name: "MovieRecorder", package: "MovieRecorder")],
            path: "Worker",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
