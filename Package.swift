// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

// The layers, bottom up: the pure-Swift container; one thin C module per system library; the
// platform layer (files, threads, queues, clock, loader); capture sources and encoders; the
// AVFoundation-shaped API; the command line. Benchmarks/ and Tests/DeviceRig/ are packages of
// their own that depend on this one.
let package = Package(
    name: "MovieRecorder",
    platforms: [.macOS(.v15)],
    products: [
        // Everything an application records with: `import MovieRecorder` for the session and
        // outputs, `MovieCapture` for naming sources and frames, `MovieEncoding` for encoder
        // settings, `MovieContainer` for orientation and for reading and writing movies, `MovieNetwork`
        // for uploading recordings.
        .library(name: "MovieRecorder", targets: ["MovieRecorder", "MovieCapture", "MovieEncoding", "MovieContainer", "MovieNetwork"]),
        // Reading, inspecting and writing QuickTime movies in pure Swift, with no C library.
        .library(name: "MovieContainer", targets: ["MovieContainer"]),
        .executable(name: "movrec", targets: ["movrec"]),
    ],
    targets: [
        // Pure Swift: atoms, orientation, H.264 parameter sets, the streaming writer and the
        // reader. No C module and no Foundation: bytes in, bytes out.
        .target(name: "MovieContainer", swiftSettings: strict),
        // One thin C module per system library: its header for Swift, a C shim for what Swift
        // cannot call, and the library's functions forwarded to it opened on first use (dlopen),
        // so a command that never encodes or captures does not load x264, ALSA, libv4l2, libyuv,
        // TurboJPEG or libsamplerate at start. The headers come from Debian's -dev packages on the default paths
        // (Scripts/install-dependencies); nothing is linked at build time.
        .target(name: "CX264", dependencies: ["CLinux"]),
        .target(name: "CX265", dependencies: ["CLinux"]),
        .target(name: "CALSA", dependencies: ["CLinux"]),
        .target(name: "CV4L2", dependencies: ["CLinux"]),
        .target(name: "CTurboJPEG", dependencies: ["CLinux"]),
        .target(name: "CAVCodec", dependencies: ["CLinux"]),
        .target(name: "CYUV", dependencies: ["CLinux"]),
        .target(name: "CSampleRate", dependencies: ["CLinux"]),
        .target(name: "CHeif", dependencies: ["CLinux"]),
        .target(name: "CMicroHTTPD", dependencies: ["CLinux"]),
        // GStreamer's RTSP server. Its headers need GLib's, whose configuration header lives in
        // an architecture's own directory: both Debian architectures the project runs on are named.
        .target(name: "CGStreamer", dependencies: ["CLinux"], cSettings: [.unsafeFlags([
            "-I/usr/include/gstreamer-1.0", "-I/usr/include/glib-2.0",
            "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
            "-I/usr/lib/arm-linux-gnueabihf/glib-2.0/include",
        ])]),
        // libcurl, the HTTP client uploads go through (S3's API, SigV4 signing), and OpenSSL's
        // libcrypto for the digests each upload carries. Debian puts curl's headers in the
        // architecture's include directory, which the compiler searches by default.
        .target(name: "CCurl", dependencies: ["CLinux"]),
        .target(name: "CCrypto", dependencies: ["CLinux"]),
        // Linux calls glibc hides behind _GNU_SOURCE (fallocate), and the loader the others use.
        .target(name: "CLinux"),
        // Files, mappings, threads, bounded queues, the clock and the library loader: internal to
        // this package (`package` access), the only Swift code that calls the system directly.
        .target(
            name: "MoviePlatform",
            dependencies: ["MovieContainer", "CLinux", "CX264", "CX265", "CALSA", "CV4L2", "CTurboJPEG", "CAVCodec", "CYUV", "CSampleRate", "CHeif", "CMicroHTTPD", "CGStreamer", "CCurl", "CCrypto"],
            swiftSettings: strict
        ),
        // Where media comes from: V4L2 cameras (their formats converted by libyuv and TurboJPEG),
        // recorded camera buffers, ALSA microphones, the test pattern and tone, Y4M and WAV files.
        .target(
            name: "MovieCapture",
            dependencies: ["MovieContainer", "MoviePlatform", "CV4L2", "CALSA", "CTurboJPEG", "CYUV", "CLinux"],
            swiftSettings: strict
        ),
        // H.264 through libx264, AAC through FFmpeg's libavcodec, JPEG through TurboJPEG, HEIF
        // through libheif, Exif;
        // audio resampled through libsamplerate to follow a microphone's clock.
        .target(
            name: "MovieEncoding",
            dependencies: ["MovieContainer", "MoviePlatform", "MovieCapture", "CX264", "CX265", "CV4L2", "CTurboJPEG", "CAVCodec", "CSampleRate", "CHeif"],
            swiftSettings: strict
        ),
        // The AVFoundation-shaped API: session, outputs, rotation, file editing.
        .target(
            name: "MovieRecorder",
            dependencies: ["MovieContainer", "MoviePlatform", "MovieCapture", "MovieEncoding"],
            swiftSettings: strict
        ),
        // Recordings leaving the device: the upload queue to S3-compatible object storage.
        .target(
            name: "MovieNetwork",
            dependencies: ["MovieRecorder", "MovieCapture", "MovieContainer", "MoviePlatform"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "movrec",
            dependencies: ["MovieRecorder", "MovieNetwork", "MovieCapture", "MovieEncoding", "MovieContainer", "MoviePlatform"],
            swiftSettings: strict
        ),
        .testTarget(name: "MovieContainerTests", dependencies: ["MovieContainer"], swiftSettings: strict),
        .testTarget(
            name: "MovieRecorderTests",
            dependencies: ["MovieRecorder", "MovieNetwork", "MovieCapture", "MovieEncoding", "MoviePlatform", "MovieContainer", "CLinux", "movrec"],
            swiftSettings: strict
        ),
    ]
)
