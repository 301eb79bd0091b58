// swift-tools-version: 6.0
import PackageDescription

// The programs the device rig (run-device-tests) runs inside its VM, beside the rig that runs
// them: a package of their own that depends on the library.
let package = Package(
    name: "MovieRecorderDeviceRig",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "MovieRecorder", path: "../..")],
    targets: [
        // Driver calls the programs make outside the library: V4L2 controls, ALSA playback.
        .target(
            name: "CRigDrivers",
            path: "CRigDrivers",
            linkerSettings: [.linkedLibrary("v4l2"), .linkedLibrary("asound")]
        ),
        // Proves that a static Swift binary, libv4l2 and libasound reach vivid and snd-aloop.
        .executableTarget(
            name: "device-probe",
            dependencies: ["CRigDrivers", .product(name: "MovieRecorder", package: "MovieRecorder")],
            path: "device-probe",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The library against vivid and snd-aloop: recordings in each pixel format with the
        // loopback's tone, fault injection, a replug, an ALSA overrun.
        .executableTarget(
            name: "device-tests",
            dependencies: ["CRigDrivers", .product(name: "MovieRecorder", package: "MovieRecorder")],
            path: "device-tests",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
