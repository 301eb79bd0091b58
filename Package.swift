// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "MovieRecorder",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MovieRecorder", targets: ["MovieRecorder"]),
        .library(name: "MovieContainer", targets: ["MovieContainer"]),
        .executable(name: "movrec", targets: ["movrec"]),
    ],
    targets: [
        // Pure Swift: atoms, orientation, H.264 parameter sets, the streaming writer and the
        // reader. No C module and no Foundation: bytes in, bytes out.
        .target(name: "MovieContainer", swiftSettings: strict),
        // One thin C module per system library: its header for Swift, a C shim for what Swift
        // cannot call, and the library's functions forwarded to it opened on first use (dlopen),
        // so a command that never encodes or captures does not load x264, ALSA, libv4l2 or
        // TurboJPEG at start. The headers come from Debian's -dev packages on the default paths
        // (Scripts/install-dependencies); nothing is linked at build time.
        .target(name: "CX264", dependencies: ["CLinux"]),
        .target(name: "CALSA", dependencies: ["CLinux"]),
        .target(name: "CV4L2", dependencies: ["CLinux"]),
        .target(name: "CTurboJPEG", dependencies: ["CLinux"]),
        // Linux calls glibc hides behind _GNU_SOURCE (fallocate), and the loader the four use.
        .target(name: "CLinux"),
        // Files, capture, encoding and orchestration on top of the container.
        .target(
            name: "MovieRecorder",
            dependencies: ["MovieContainer", "CX264", "CALSA", "CV4L2", "CTurboJPEG", "CLinux"],
            swiftSettings: strict
        ),
        .executableTarget(name: "movrec", dependencies: ["MovieRecorder"], swiftSettings: strict),
        // Run inside the device-test VM (Tests/DeviceRig/run-device-tests): proves that a static
        // Swift binary, libv4l2 and libasound reach the vivid and snd-aloop drivers.
        .executableTarget(
            name: "device-probe",
            dependencies: ["MovieRecorder", "CV4L2", "CALSA"],
            path: "Tests/DeviceRig/device-probe",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The library against vivid and snd-aloop inside the VM: recordings in each pixel
        // format with the loopback's tone, fault injection, a replug, an ALSA overrun.
        .executableTarget(
            name: "device-tests",
            dependencies: ["MovieRecorder", "CV4L2", "CALSA"],
            path: "Tests/DeviceRig/device-tests",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The benchmark harness (Benchmarks/run): runs every contender as a child process,
        // alternating them, and reports ratios, CPU seconds and peak RSS.
        .executableTarget(name: "movrec-bench", path: "Benchmarks/Harness", swiftSettings: strict),
        // Starts each run the harness measures and reports its wall time, CPU time and peak RSS:
        // a small C program, so the peak RSS its children inherit from it is about a megabyte.
        .executableTarget(name: "bench-spawn", path: "Benchmarks/Spawn"),
        // What the harness measures of the library through its public API, one case per run.
        .executableTarget(name: "bench-worker", dependencies: ["MovieRecorder", "MovieContainer"], path: "Benchmarks/Worker",
                          swiftSettings: strict),
        .testTarget(name: "MovieContainerTests", dependencies: ["MovieContainer"], swiftSettings: strict),
        .testTarget(
            name: "MovieRecorderTests",
            dependencies: ["MovieRecorder", "MovieContainer", "CLinux", "movrec"],
            swiftSettings: strict
        ),
    ]
)
