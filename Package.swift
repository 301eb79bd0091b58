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
        // Files, sources, editing, and (later) capture and encoding on top of the container.
        .target(name: "MovieRecorder", dependencies: ["MovieContainer"], swiftSettings: strict),
        .executableTarget(name: "movrec", dependencies: ["MovieRecorder"], swiftSettings: strict),
        .testTarget(name: "MovieContainerTests", dependencies: ["MovieContainer"], swiftSettings: strict),
        .testTarget(
            name: "MovieRecorderTests",
            dependencies: ["MovieRecorder", "MovieContainer", "movrec"],
            swiftSettings: strict
        ),
    ]
)
