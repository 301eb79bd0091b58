// swift-tools-version: 6.0
import PackageDescription

// Every Swift example in README.md and the DocC articles, compiled against the library in
// Swift 6 mode: Scripts/check-docs extracts them into Sources/Examples (generated, not kept)
// and builds this package. The README's recording example also runs inside
// `@main struct … { @MainActor static func main() async throws }`.
let package = Package(
    name: "MovieRecorderExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "MovieRecorder", path: "../..")],
    targets: [
        .executableTarget(
            name: "Examples",
            dependencies: [.product(name: "MovieRecorder", package: "MovieRecorder")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
