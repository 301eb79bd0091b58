import CLinux
import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The media libraries are opened when first needed: `movrec mux` starts without them, a
/// recording opens x264, and a library that cannot be opened is named with what to install.
@Suite struct SystemLibraryTests {
    @Test func everyMediaLibraryOpensOnThisMachine() {
        for library in SystemLibrary.allCases {
            #expect(library.load() == nil, "\(library.soname)")
            // The second call repeats the first's answer.
            #expect(library.load() == nil, "\(library.soname), again")
        }
    }

    /// The loader names the file it could not open, or the function the file lacks.
    @Test func aMissingLibraryOrFunctionIsNamed() {
        func open(_ soname: String, _ function: String) -> (status: Int32, message: String, found: Bool) {
            var functions: [UnsafeMutableRawPointer?] = [nil]
            var message = [CChar](repeating: 0, count: 512)
            let status = function.withCString { name in
                let names: [UnsafePointer<CChar>?] = [name]
                return CLinux_openLibrary(soname, names, &functions, 1, &message, UInt(message.count))
            }
            return (status, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), functions[0] != nil)
        }
        let absent = open("libmovrec-absent.so.9", "x264_encoder_encode")
        #expect(absent.status == -1)
        #expect(absent.message.contains("libmovrec-absent.so.9"), "\(absent.message)")
        let wrongLibrary = open("libc.so.6", "x264_encoder_encode")
        #expect(wrongLibrary.status == -1)
        #expect(wrongLibrary.message == "libc.so.6 has no function x264_encoder_encode", "\(wrongLibrary.message)")
        let present = open("libc.so.6", "getpid")
        #expect(present.status == 0 && present.found && present.message.isEmpty)
    }

    /// glibc's loader lists every shared object it opens (LD_DEBUG=files): a mux opens none of the
    /// media libraries, a recording opens x264 by `dlopen` and nothing else of them.
    @Test func movrecOpensOnlyWhatACommandNeeds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let movrec = try movrecPath()
        let mux = try run("/usr/bin/env", ["LD_DEBUG=files", movrec, "mux", directory.file("mux.mov"),
                                            "--video", fixture("testsrc-ipp.264"), "--fps", "30"])
        #expect(mux.status == 0, "\(mux.error.suffix(400))")
        #expect(mux.error.contains("file=libc.so.6"), "LD_DEBUG printed no list of the shared objects opened")
        for library in SystemLibrary.allCases {
            #expect(!mux.error.contains("file=\(library.soname)"), "movrec mux opened \(library.soname)")
        }
        let record = try run("/usr/bin/env", ["LD_DEBUG=files", movrec, "record", directory.file("record.mov"),
                                               "--video", "testsrc", "--size", "160x120", "--duration", "0.2", "--audio", "none"])
        #expect(record.status == 0, "\(record.error.suffix(400))")
        #expect(record.error.contains("file=\(SystemLibrary.x264.soname) [0];  dynamically loaded by"),
                "movrec record did not open \(SystemLibrary.x264.soname) itself")
        for library in SystemLibrary.allCases where library != .x264 {
            #expect(!record.error.contains("file=\(library.soname)"), "movrec record from the test pattern opened \(library.soname)")
        }
        // With the tone, AAC (the default) opens libavcodec; LPCM does not.
        for codec in ["aac", "lpcm"] {
            let withTone = try run("/usr/bin/env", ["LD_DEBUG=files", movrec, "record", directory.file("\(codec).mov"), "--video", "testsrc",
                                                     "--size", "160x120", "--duration", "0.2", "--audio", "tone", "--audio-codec", codec])
            #expect(withTone.status == 0, "\(withTone.error.suffix(400))")
            #expect(withTone.error.contains("file=\(SystemLibrary.avcodec.soname) [0];  dynamically loaded by") == (codec == "aac"),
                    "movrec record --audio-codec \(codec) and \(SystemLibrary.avcodec.soname)")
            #expect(!withTone.error.contains("file=\(SystemLibrary.samplerate.soname)"), "the tone shares the media clock: nothing to resample")
        }
        // A tone on a clock of its own, as a microphone's, is resampled: libsamplerate opens.
        let drifting = try run("/usr/bin/env", ["LD_DEBUG=files", movrec, "record", directory.file("drift.mov"), "--video", "testsrc",
                                                 "--size", "160x120", "--duration", "0.2", "--audio", "tone", "--tone-drift", "500"])
        #expect(drifting.status == 0, "\(drifting.error.suffix(400))")
        #expect(drifting.error.contains("file=\(SystemLibrary.samplerate.soname) [0];  dynamically loaded by"),
                "movrec record --tone-drift did not open \(SystemLibrary.samplerate.soname)")
    }

    /// A library that cannot be opened (here an empty file of its name found first on
    /// LD_LIBRARY_PATH) fails the recording before anything is written, with a message that
    /// names the file and the Debian package to install.
    @Test(arguments: [(SystemLibrary.x264, []), (.avcodec, []), (.samplerate, ["--tone-drift", "1000"])])
    func anUnloadableLibraryFailsTheRecordingNamingThePackage(_ library: SystemLibrary, _ extra: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(FileManager.default.createFile(atPath: directory.file(library.soname), contents: Data()))
        let movie = directory.file("movie.mov")
        let result = try run("/usr/bin/env", ["LD_LIBRARY_PATH=\(directory.path)", try movrecPath(), "record", movie, "--video", "testsrc",
                                               "--size", "160x120", "--duration", "0.2", "--audio", "tone", "--quiet"] + extra)
        #expect(result.status == 1)
        #expect(result.error.contains("loading \(library.soname) failed") && result.error.contains("install the \(library.package) package"),
                "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: movie), "no file is left behind")
    }

    /// The conversion libraries fail a recording from camera buffers the same way: libyuv for
    /// YUYV, TurboJPEG for Motion JPEG.
    @Test(arguments: [(SystemLibrary.yuv, "yuyv"), (.turboJPEG, "mjpeg")])
    func anUnloadableConversionLibraryFailsTheReplayNamingThePackage(_ library: SystemLibrary, _ format: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let input = directory.file("in.\(format)")
        let made = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "3"]
                           + (format == "yuyv" ? ["-pix_fmt", "yuyv422", "-f", "rawvideo"] : ["-pix_fmt", "yuvj422p", "-f", "mjpeg"]) + [input])
        #expect(made.status == 0, "\(made.error)")
        #expect(FileManager.default.createFile(atPath: directory.file(library.soname), contents: Data()))
        let movie = directory.file("movie.mov")
        let result = try run("/usr/bin/env", ["LD_LIBRARY_PATH=\(directory.path)", try movrecPath(), "record", movie, "--video", input,
                                               "--size", "160x120", "--quiet"])
        #expect(result.status == 1)
        #expect(result.error.contains("loading \(library.soname) failed") && result.error.contains("install the \(library.package) package"),
                "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: movie), "no file is left behind")
    }

    /// AAC settings libavcodec would refuse or change are refused first, naming the range.
    @Test func anAACBitRateOutOfRangeIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let result = try run(try movrecPath(), ["record", directory.file("movie.mov"), "--video", "testsrc", "--size", "160x120",
                                                "--duration", "0.2", "--audio", "tone", "--audio-bitrate", "1000", "--quiet"])
        #expect(result.status == 1)
        #expect(result.error.contains("AAC encoder: 1000 kbit/s is outside 16–512 kbit/s for 2 channels"), "\(result.error)")
        let lpcm = try run(try movrecPath(), ["record", directory.file("movie.mov"), "--video", "testsrc", "--audio-codec", "lpcm",
                                              "--audio-bitrate", "96"])
        #expect(lpcm.status == 2 && lpcm.error.contains("--audio-bitrate needs --audio-codec aac"), "\(lpcm.error)")
    }
}
